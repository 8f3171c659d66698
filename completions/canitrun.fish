# fish completion for canitrun: subcommands, options, and model / GPU / quantization names read
# from the database (`canitrun models --names`, `gpu-list --names`, `quants --names`).
# Installed to share/fish/vendor_completions.d/canitrun.fish.

function __canitrun_names --argument-names what
    set -l tokens (commandline -opc)
    set -l data
    set -l i (contains -i -- --data $tokens)
    and set data --data $tokens[(math $i + 1)]
    $tokens[1] $data $what --names 2>/dev/null
end

set -l subcommands gpus models gpu-list quants system fit compare local verify serve site mcp
set -l no_sub "not __fish_seen_subcommand_from $subcommands"
set -l estimate "not __fish_seen_subcommand_from models gpu-list quants system verify serve site mcp"

complete -c canitrun -f
complete -c canitrun -n $no_sub -a gpus -d 'List the GPUs that run a model'
complete -c canitrun -n $no_sub -a models -d 'List the models in the database'
complete -c canitrun -n $no_sub -a gpu-list -d 'List the GPUs in the database'
complete -c canitrun -n $no_sub -a quants -d 'List the quantization formats'
complete -c canitrun -n $no_sub -a system -d 'Show the GPUs and RAM found on this machine'
complete -c canitrun -n $no_sub -a fit -d 'Every model that runs on a machine'
complete -c canitrun -n $no_sub -a compare -d 'Models side by side'
complete -c canitrun -n $no_sub -a local -d 'The models already on disk'
complete -c canitrun -n $no_sub -a verify -d 'Compare a llama.cpp log with the estimate'
complete -c canitrun -n $no_sub -a serve -d 'The pages, a live calculator and the JSON API over HTTP'
complete -c canitrun -n $no_sub -a site -d 'Write the pages and documents as a static site'
complete -c canitrun -n $no_sub -a mcp -d 'A Model Context Protocol server on stdio'
complete -c canitrun -n '__fish_seen_subcommand_from serve' -l port -x -d 'TCP port (default 8080)'
complete -c canitrun -n '__fish_seen_subcommand_from serve' -l bind -x -d 'Address to listen on (default 127.0.0.1)'
complete -c canitrun -n '__fish_seen_subcommand_from serve' -l threads -x -d 'Worker threads'
complete -c canitrun -n '__fish_seen_subcommand_from serve mcp' -l allow-remote -d 'Answer remote models (hf:, ollama:)'
complete -c canitrun -n '__fish_seen_subcommand_from site' -a '(__fish_complete_directories)' -d folder
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from gpus compare" -a '(__canitrun_names models)' -d model
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from gpus compare" -a 'hf: ollama: https://' -d 'remote model (hf:ORG/REPO[:QUANT], ollama:NAME[:TAG], URL)' 

complete -c canitrun -l json -d 'Print one JSON document on stdout'
complete -c canitrun -l format -x -a 'table json csv markdown html' -d 'Output format'
complete -c canitrun -l quiet -d 'Print just the answer'
complete -c canitrun -l data -r -F -d 'Load the database from this folder'
complete -c canitrun -s h -l help -d 'Print help and exit'
complete -c canitrun -n $no_sub -l version -d 'Print the program and database versions'
complete -c canitrun -n $estimate -s q -l quant -x -a '(__canitrun_names quants)' -d Quantization
complete -c canitrun -n $estimate -s c -l ctx -x -d 'Context length in tokens (8192, 32k, 1M)'
complete -c canitrun -n $estimate -l kv-type -x -a 'f16 bf16 f32 q8_0 q5_1 q5_0 q4_1 q4_0 iq4_nl turboquant' -d 'KV cache element type'
complete -c canitrun -n $estimate -l ram -x -d 'System RAM in GB for CPU offload'
complete -c canitrun -n $no_sub -l vram -x -d 'A VRAM budget in GB'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from fit compare" -l min-quant -x -a '(__canitrun_names quants)' -d 'Lowest quantization a choice may pick'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l min-speed -x -d 'Slowest decode a choice with offload may pick'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from fit compare local" -l gpu -x -a '(__canitrun_names gpu-list) auto' -d 'Your GPUs: "RTX 4090", 2x3090, 4090,3090, auto'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from fit compare local" -l ram-bandwidth -x -d 'RAM bandwidth in GB/s'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from fit compare local" -l gpu-memory -x -d 'GB a unified-memory GPU may use'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from fit compare local" -l gpu-spec -r -F -d 'A JSON file describing a GPU the database lacks'
complete -c canitrun -n '__fish_seen_subcommand_from fit' -l sort -x -a 'params speed context name' -d 'Order of the models'
complete -c canitrun -n $no_sub -l ngl -x -d 'Layers on the GPUs (llama.cpp -ngl)'
complete -c canitrun -n $no_sub -l n-cpu-moe -x -d 'Experts of the first N layers in RAM'
complete -c canitrun -n $no_sub -l cpu-moe -d 'Every layer'"'"'s experts in RAM'
complete -c canitrun -n $no_sub -l tensor-split -x -d 'Layer proportions per GPU (llama.cpp -ts)'
complete -c canitrun -n $no_sub -l split-mode -x -a 'layer row tensor' -d 'llama.cpp -sm over several GPUs'
complete -c canitrun -n $no_sub -l mmproj -r -F -d 'A vision projector GGUF'
complete -c canitrun -n $no_sub -l chart -d 'Draw the KV chart even into a pipe'
complete -c canitrun -n $no_sub -l ascii -d 'Plain ASCII chart and layer diagram'
complete -c canitrun -n $no_sub -l offline -d 'Remote models from the cache only'
complete -c canitrun -n $no_sub -l timeout -x -d 'Seconds a server may send nothing'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l engine -x -a 'quick llama.cpp vllm exo' -d 'Engine profile'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l ubatch -x -d 'llama.cpp micro-batch'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l parallel -x -d 'llama.cpp sequences'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l flash-attn -x -a 'on off auto' -d 'Flash attention'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l cache-type-k -x -a 'f16 bf16 f32 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -d 'K cache type'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l cache-type-v -x -a 'f16 bf16 f32 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -d 'V cache type'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l backend -x -a 'cpu cuda rocm metal vulkan' -d 'llama.cpp backend'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l margin -x -d 'MiB kept free on every GPU'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l cache-ram -x -d 'MiB the prompt cache may grow to'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l ctx-checkpoints -x -d 'Context checkpoints per sequence'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l no-kv-offload -d 'KV cache in system RAM'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l no-repack -d 'No repacked copy of the weights on the CPU'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l mtp -d 'Draft with the model'"'"'s own MTP layers'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l draft -x -a '(__canitrun_names models)' -d 'A draft model for speculative decoding'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l also -x -a '(__canitrun_names models)' -d 'Another model resident at once'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from compare" -l gpu-memory-utilization -x -d 'vLLM budget share'
complete -c canitrun -n "$no_sub; or __fish_seen_subcommand_from gpus" -l users -x -d 'Users at once, each with --ctx tokens'
complete -c canitrun -n $no_sub -l host -x -a '(__canitrun_names gpu-list)' -d 'One machine of several: its GPUs'
complete -c canitrun -n $no_sub -l link -x -d 'Network between hosts in Gb/s'
complete -c canitrun -n '__fish_seen_subcommand_from verify' -F -d 'llama.cpp log'
complete -c canitrun -n '__fish_seen_subcommand_from verify' -l model -x -a '(__canitrun_names models)' -d 'The log'"'"'s model, for an excerpt'
complete -c canitrun -n '__fish_seen_subcommand_from models' -l family -x -d 'Only this family'
complete -c canitrun -n '__fish_seen_subcommand_from models' -l since -x -d 'Only models released on or after (2026-06)'
complete -c canitrun -n '__fish_seen_subcommand_from models gpu-list' -l vendor -x -d 'Only this vendor'
complete -c canitrun -n '__fish_seen_subcommand_from gpu-list' -l min-vram -x -d 'Only GPUs with at least this many GB'
complete -c canitrun -n '__fish_seen_subcommand_from models gpu-list quants' -l names -d 'Print only the ids'
