# bash completion for canitrun                                    -*- shell-script -*-
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
        --quant | -q | --min-quant)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names quants)" -- "$cur")
            return
            ;;
        --gpu)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names gpu-list)" -- "$cur")
            return
            ;;
        --kv-type)
            mapfile -t COMPREPLY < <(compgen -W "f16 bf16 f32 q8_0 q5_1 q5_0 q4_1 q4_0 iq4_nl turboquant" -- "$cur")
            return
            ;;
        --cache-type-k | --cache-type-v)
            mapfile -t COMPREPLY < <(compgen -W "f16 bf16 f32 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1" -- "$cur")
            return
            ;;
        --format)
            mapfile -t COMPREPLY < <(compgen -W "table json csv markdown html" -- "$cur")
            return
            ;;
        --engine)
            mapfile -t COMPREPLY < <(compgen -W "quick llama.cpp vllm exo" -- "$cur")
            return
            ;;
        --flash-attn)
            mapfile -t COMPREPLY < <(compgen -W "on off auto" -- "$cur")
            return
            ;;
        --backend)
            mapfile -t COMPREPLY < <(compgen -W "cpu cuda rocm metal vulkan" -- "$cur")
            return
            ;;
        --sort)
            mapfile -t COMPREPLY < <(compgen -W "params speed context name" -- "$cur")
            return
            ;;
        --mmproj | --gpu-spec)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return
            ;;
        --data)
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return
            ;;
        --vendor)
            [[ $sub == gpu-list ]] &&
                mapfile -t COMPREPLY < <(compgen -W "nvidia amd intel apple" -- "$cur")
            return
            ;;
        --ctx | -c | --ram | --vram | --min-vram | --family | --since | --ram-bandwidth | --gpu-memory | --ngl | --n-cpu-moe | --tensor-split | --split-mode | \
            --ubatch | --parallel | --margin | --gpu-memory-utilization | --users | --link | --min-speed | --cache-ram | --ctx-checkpoints)
            return
            ;;
        --draft | --also)
            mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names models)" -- "$cur")
            return
            ;;
        --host)
            mapfile -t COMPREPLY < <(compgen -W "$(canitrun gpu-list --names 2>/dev/null)" -- "$cur")
            return
            ;;
    esac

    local common="--json --format --quiet --data --help"
    local estimate="--quant --ctx --kv-type --ram"
    local hardware="--gpu --gpu-spec --ram-bandwidth --gpu-memory"
    local engine="--engine --ubatch --parallel --flash-attn --cache-type-k --cache-type-v --backend --margin --cache-ram --ctx-checkpoints --no-kv-offload --no-repack --mtp --draft --also --gpu-memory-utilization"
    if [[ $cur == -* ]]; then
        case $sub in
            gpus) mapfile -t COMPREPLY < <(compgen -W "$common $estimate --users" -- "$cur") ;;
            models) mapfile -t COMPREPLY < <(compgen -W "$common --family --vendor --since --names" -- "$cur") ;;
            gpu-list) mapfile -t COMPREPLY < <(compgen -W "$common --vendor --min-vram --names" -- "$cur") ;;
            quants) mapfile -t COMPREPLY < <(compgen -W "$common --names" -- "$cur") ;;
            system) mapfile -t COMPREPLY < <(compgen -W "$common" -- "$cur") ;;
            verify) mapfile -t COMPREPLY < <(compgen -W "$common --model --quant --gpu" -- "$cur") ;;
            fit) mapfile -t COMPREPLY < <(compgen -W "$common $hardware --ctx --kv-type --ram --min-quant --sort" -- "$cur") ;;
            local) mapfile -t COMPREPLY < <(compgen -W "$common $hardware --ctx --ram" -- "$cur") ;;
            compare) mapfile -t COMPREPLY < <(compgen -W "$common $estimate $hardware $engine --min-quant --min-speed" -- "$cur") ;;
            serve) mapfile -t COMPREPLY < <(compgen -W "--port --bind --threads --quiet --allow-remote --help" -- "$cur") ;;
            site) mapfile -t COMPREPLY < <(compgen -W "--quiet --help" -- "$cur") ;;
            mcp) mapfile -t COMPREPLY < <(compgen -W "--allow-remote --help" -- "$cur") ;;
            *) mapfile -t COMPREPLY < <(compgen -W "$common $estimate $hardware $engine --users --host --link --vram --min-quant --min-speed --ngl --n-cpu-moe --cpu-moe --tensor-split --split-mode --mmproj --chart --ascii --offline --timeout --version" -- "$cur") ;;
        esac
        return
    fi
    case $sub in
        gpus | compare) mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names models) hf: ollama: https://" -- "$cur"; _canitrun_model_files) ;;
        verify) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        site) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
        models | gpu-list | quants | system | fit | local | serve | mcp) ;;
        *) mapfile -t COMPREPLY < <(compgen -W "gpus models gpu-list quants system fit compare local verify serve site mcp $(_canitrun_names models) hf: ollama: https://" -- "$cur"; _canitrun_model_files) ;;
    esac
}

complete -F _canitrun canitrun
