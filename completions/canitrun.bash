# bash completion for canitrun                                    -*- shell-script -*-
# Made by `canitrun --generate complete-bash` from the flag table (src/cli/flag_rows*.cpp);
# do not edit: tools/flags/regenerate.sh BUILD_DIR writes it again.

# Subcommands, options, and model / GPU / quantization names read from the database itself
# (`canitrun models --names`, `gpu-list --names`, `quants --names`), so they follow --data.
# Installed to share/bash-completion/completions/canitrun.

_canitrun_names() {
    # $1: models | gpu-list | quants. Uses the canitrun being completed and any --data given.
    local prog=${COMP_WORDS[0]} data=() i
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        if [[ ${COMP_WORDS[i]} == --data ]]; then
            data=(--data "${COMP_WORDS[i + 1]}")
        fi
    done
    "$prog" "${data[@]}" "$1" --names 2>/dev/null
}

# Model files as the model argument: GGUF files, config.json files and folders (HF checkouts).
_canitrun_model_files() {
    compgen -f -X '!*.gguf' -- "$cur"
    compgen -f -X '!*config.json' -- "$cur"
    compgen -d -S / -- "$cur"
}

_canitrun() {
    local cur prev sub="" i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            gpus | models | gpu-list | quants | system | fit | compare | local | verify | serve | site | mcp)
                sub=${COMP_WORDS[i]}
                break
                ;;
        esac
    done

    case $prev in
        --format)
            mapfile -t COMPREPLY < <(compgen -W "table json csv markdown html" -- "$cur")
            return
            ;;
        --data)
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return
            ;;
        --generate)
            mapfile -t COMPREPLY < <(compgen -W "man complete-bash complete-zsh complete-fish" -- "$cur")
            return
            ;;
        --quant | -q)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names quants)" -- "$cur")
            return
            ;;
        --ctx | -c)
            return
            ;;
        --kv-type)
            mapfile -t COMPREPLY < <(compgen -W "f16 bf16 f32 q8_0 q5_1 q5_0 q4_1 q4_0 iq4_nl turboquant" -- "$cur")
            return
            ;;
        --vram)
            return
            ;;
        --min-quant)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names quants)" -- "$cur")
            return
            ;;
        --min-speed)
            return
            ;;
        --users)
            return
            ;;
        --mmproj)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return
            ;;
        --timeout)
            return
            ;;
        --gpu)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names gpu-list) auto" -- "$cur")
            return
            ;;
        --gpu-spec)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return
            ;;
        --ram)
            return
            ;;
        --ram-bandwidth)
            return
            ;;
        --gpu-memory)
            return
            ;;
        --ngl)
            return
            ;;
        --n-cpu-moe)
            return
            ;;
        --tensor-split)
            return
            ;;
        --split-mode)
            mapfile -t COMPREPLY < <(compgen -W "layer row tensor" -- "$cur")
            return
            ;;
        --host)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names gpu-list)" -- "$cur")
            return
            ;;
        --link)
            return
            ;;
        --engine)
            mapfile -t COMPREPLY < <(compgen -W "llama.cpp quick vllm exo" -- "$cur")
            return
            ;;
        --ubatch)
            return
            ;;
        --parallel)
            return
            ;;
        --flash-attn)
            mapfile -t COMPREPLY < <(compgen -W "on off auto" -- "$cur")
            return
            ;;
        --reserve-outputs)
            mapfile -t COMPREPLY < <(compgen -W "server all" -- "$cur")
            return
            ;;
        --cache-type-k)
            mapfile -t COMPREPLY < <(compgen -W "f16 bf16 f32 q8_0 q5_1 q5_0 q4_1 q4_0 iq4_nl" -- "$cur")
            return
            ;;
        --cache-type-v)
            mapfile -t COMPREPLY < <(compgen -W "f16 bf16 f32 q8_0 q5_1 q5_0 q4_1 q4_0 iq4_nl" -- "$cur")
            return
            ;;
        --backend)
            mapfile -t COMPREPLY < <(compgen -W "cpu cuda rocm metal vulkan" -- "$cur")
            return
            ;;
        --margin)
            return
            ;;
        --cache-ram)
            return
            ;;
        --ctx-checkpoints)
            return
            ;;
        --load-mode)
            mapfile -t COMPREPLY < <(compgen -W "auto none mmap mlock mmap+mlock dio" -- "$cur")
            return
            ;;
        --draft)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names models)" -- "$cur")
            return
            ;;
        --also)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names models)" -- "$cur")
            return
            ;;
        --gpu-memory-utilization)
            return
            ;;
        --sort)
            mapfile -t COMPREPLY < <(compgen -W "params speed context name" -- "$cur")
            return
            ;;
        --model)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names models)" -- "$cur")
            return
            ;;
        --family)
            return
            ;;
        --vendor)
            return
            ;;
        --since)
            return
            ;;
        --min-vram)
            return
            ;;
        --port)
            return
            ;;
        --bind)
            return
            ;;
        --threads)
            return
            ;;
    esac

    if [[ $cur == -* ]]; then
        case $sub in
            gpus) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data --quant --ctx --kv-type --users --mmproj --offline --timeout --ram --engine --ubatch --parallel --flash-attn --reserve-outputs --cache-type-k --cache-type-v --margin --cache-ram --ctx-checkpoints --no-kv-offload --no-op-offload --blas-build --no-repack --mtp --load-mode --no-mmproj --no-mmproj-offload --draft --also" -- "$cur") ;;
            models) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data --family --vendor --since --names" -- "$cur") ;;
            gpu-list) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data --vendor --min-vram --names" -- "$cur") ;;
            quants) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data --names" -- "$cur") ;;
            system) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data" -- "$cur") ;;
            fit) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data --ctx --kv-type --min-quant --gpu --gpu-spec --ram --ram-bandwidth --gpu-memory --engine --ubatch --parallel --flash-attn --reserve-outputs --cache-type-k --cache-type-v --margin --cache-ram --ctx-checkpoints --no-kv-offload --no-op-offload --blas-build --no-repack --mtp --load-mode --no-mmproj --no-mmproj-offload --draft --also --sort" -- "$cur") ;;
            compare) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data --quant --ctx --kv-type --min-quant --min-speed --offline --timeout --gpu --gpu-spec --ram --ram-bandwidth --gpu-memory --engine --ubatch --parallel --flash-attn --reserve-outputs --cache-type-k --cache-type-v --margin --cache-ram --ctx-checkpoints --no-kv-offload --no-op-offload --blas-build --no-repack --mtp --load-mode --no-mmproj --no-mmproj-offload --draft --also" -- "$cur") ;;
            local) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data --ctx --kv-type --gpu --gpu-spec --ram --ram-bandwidth --gpu-memory --engine --ubatch --parallel --flash-attn --reserve-outputs --cache-type-k --cache-type-v --margin --cache-ram --ctx-checkpoints --no-kv-offload --no-op-offload --blas-build --no-repack --mtp --load-mode --no-mmproj --no-mmproj-offload --draft --also" -- "$cur") ;;
            verify) mapfile -t COMPREPLY < <(compgen -W "--help --json --format --quiet --data --quant --gpu --gpu-spec --model" -- "$cur") ;;
            serve) mapfile -t COMPREPLY < <(compgen -W "--help --quiet --port --bind --threads --allow-remote" -- "$cur") ;;
            site) mapfile -t COMPREPLY < <(compgen -W "--help --quiet" -- "$cur") ;;
            mcp) mapfile -t COMPREPLY < <(compgen -W "--help --allow-remote" -- "$cur") ;;
            *) mapfile -t COMPREPLY < <(compgen -W "--help --version --json --format --quiet --data --chart --ascii --generate --quant --ctx --kv-type --vram --min-quant --min-speed --users --mmproj --offline --timeout --gpu --gpu-spec --ram --ram-bandwidth --gpu-memory --ngl --n-cpu-moe --cpu-moe --tensor-split --split-mode --host --link --engine --ubatch --parallel --flash-attn --reserve-outputs --cache-type-k --cache-type-v --backend --margin --cache-ram --ctx-checkpoints --no-kv-offload --no-op-offload --blas-build --no-repack --mtp --load-mode --no-mmproj --no-mmproj-offload --draft --also --gpu-memory-utilization" -- "$cur") ;;
        esac
        return
    fi
    case $sub in
        gpus) mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names models) hf: ollama: https://" -- "$cur"; _canitrun_model_files) ;;
        models) ;;
        gpu-list) ;;
        quants) ;;
        system) ;;
        fit) ;;
        compare) mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names models) hf: ollama: https://" -- "$cur"; _canitrun_model_files) ;;
        local) ;;
        verify) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        serve) ;;
        site) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
        mcp) ;;
        *) mapfile -t COMPREPLY < <(compgen -W "gpus models gpu-list quants system fit compare local verify serve site mcp $(_canitrun_names models) hf: ollama: https://" -- "$cur"; _canitrun_model_files) ;;
    esac
}

complete -F _canitrun canitrun
