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

_canitrun() {
    local cur prev sub="" i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            gpus | models | gpu-list | quants)
                sub=${COMP_WORDS[i]}
                break
                ;;
        esac
    done

    case $prev in
        --quant | -q)
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
        --data)
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return
            ;;
        --vendor)
            [[ $sub == gpu-list ]] &&
                mapfile -t COMPREPLY < <(compgen -W "nvidia amd intel apple" -- "$cur")
            return
            ;;
        --ctx | -c | --ram | --vram | --min-vram | --family)
            return
            ;;
    esac

    local common="--json --data --help"
    local estimate="--quant --ctx --kv-type --ram"
    if [[ $cur == -* ]]; then
        case $sub in
            gpus) mapfile -t COMPREPLY < <(compgen -W "$common $estimate" -- "$cur") ;;
            models) mapfile -t COMPREPLY < <(compgen -W "$common --family --vendor --names" -- "$cur") ;;
            gpu-list) mapfile -t COMPREPLY < <(compgen -W "$common --vendor --min-vram --names" -- "$cur") ;;
            quants) mapfile -t COMPREPLY < <(compgen -W "$common --names" -- "$cur") ;;
            *) mapfile -t COMPREPLY < <(compgen -W "$common $estimate --vram --gpu --version" -- "$cur") ;;
        esac
        return
    fi
    case $sub in
        gpus) mapfile -t COMPREPLY < <(compgen -W "$(_canitrun_names models)" -- "$cur") ;;
        models | gpu-list | quants) ;;
        *) mapfile -t COMPREPLY < <(compgen -W "gpus models gpu-list quants $(_canitrun_names models)" -- "$cur") ;;
    esac
}

complete -F _canitrun canitrun
