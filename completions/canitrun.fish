# Made by `canitrun --generate complete-fish` from the flag table (src/cli/flag_rows*.cpp);
# do not edit: tools/flags/regenerate.sh BUILD_DIR writes it again.
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

# The command on the line: its first subcommand word, else page (the model page).
function __canitrun_command
    set -l tokens (commandline -opc)
    set -e tokens[1]
    for t in $tokens
        if contains -- $t gpus models gpu-list quants system fit compare local verify serve site mcp
            echo $t
            return
        end
    end
    echo page
end

# Whether the command on the line is one of the arguments.
function __canitrun_takes
    contains -- (__canitrun_command) $argv
end

complete -c canitrun -f
complete -c canitrun -n '__canitrun_takes page' -a gpus -d 'List the GPUs that run a model, natively or with CPU offload'
complete -c canitrun -n '__canitrun_takes page' -a models -d 'List the models in the database'
complete -c canitrun -n '__canitrun_takes page' -a gpu-list -d 'List the GPUs in the database'
complete -c canitrun -n '__canitrun_takes page' -a quants -d 'List the quantization formats'
complete -c canitrun -n '__canitrun_takes page' -a system -d 'Show the GPUs and RAM found on this machine'
complete -c canitrun -n '__canitrun_takes page' -a fit -d 'Every model that runs on a machine, with its best quantization, context and speed'
complete -c canitrun -n '__canitrun_takes page' -a compare -d 'Models side by side: size, context, layers, VRAM, KV growth, smallest GPU'
complete -c canitrun -n '__canitrun_takes page' -a local -d 'The models already on disk (Ollama, Hugging Face cache, LM Studio, llama.cpp)'
complete -c canitrun -n '__canitrun_takes page' -a verify -d 'Compare a llama.cpp log\'s buffers, or llama-bench\'s speeds, with canitrun\'s estimate'
complete -c canitrun -n '__canitrun_takes page' -a serve -d 'Serve the model pages, a live calculator and the JSON API over HTTP on 127.0.0.1 (canitrun serve --help)'
complete -c canitrun -n '__canitrun_takes page' -a site -d 'Write the pages and JSON documents as a static site into a folder (canitrun site --help)'
complete -c canitrun -n '__canitrun_takes page' -a mcp -d 'A Model Context Protocol server on stdio, for coding agents (canitrun mcp --help)'
complete -c canitrun -n '__canitrun_takes page' -a '(__canitrun_names models)' -d model
complete -c canitrun -n '__canitrun_takes page' -a 'hf: ollama: https://' -d 'remote model (hf:ORG/REPO[:QUANT], ollama:NAME[:TAG], URL)'
complete -c canitrun -n '__canitrun_takes gpus' -a '(__canitrun_names models)' -d model
complete -c canitrun -n '__canitrun_takes gpus' -a 'hf: ollama: https://' -d 'remote model (hf:ORG/REPO[:QUANT], ollama:NAME[:TAG], URL)'
complete -c canitrun -n '__canitrun_takes compare' -a '(__canitrun_names models)' -d model
complete -c canitrun -n '__canitrun_takes compare' -a 'hf: ollama: https://' -d 'remote model (hf:ORG/REPO[:QUANT], ollama:NAME[:TAG], URL)'
complete -c canitrun -n '__canitrun_takes verify' -F -d file
complete -c canitrun -n '__canitrun_takes site' -a '(__fish_complete_directories)' -d folder

complete -c canitrun -s h -l help -d 'Print the usage and exit'
complete -c canitrun -n '__canitrun_takes page' -s V -l version -d 'Print the program\'s and the database\'s versions and exit'
complete -c canitrun -n '__canitrun_takes page gpus models gpu-list quants system fit compare local verify' -l json -d 'Print one JSON document on stdout and nothing else'
complete -c canitrun -n '__canitrun_takes page gpus models gpu-list quants system fit compare local verify' -l format -x -a 'table json csv markdown html' -d 'Output format: table, json, csv, markdown, html'
complete -c canitrun -n '__canitrun_takes page gpus models gpu-list quants system fit compare local verify serve site' -l quiet -d 'Print less: just the answer'
complete -c canitrun -n '__canitrun_takes page gpus models gpu-list quants system fit compare local verify' -l data -x -a '(__fish_complete_directories)' -d 'Load the database from this folder instead of the built-in one'
complete -c canitrun -n '__canitrun_takes page' -l chart -d 'Draw the KV cache chart even when stdout is not a terminal'
complete -c canitrun -n '__canitrun_takes page' -l ascii -d 'Plain ASCII in the chart and layer diagram'
complete -c canitrun -n '__canitrun_takes page' -l generate -x -a 'man complete-bash complete-zsh complete-fish' -d 'Print the man page\'s OPTIONS or a shell\'s completion script, made from the flag table'
complete -c canitrun -n '__canitrun_takes page gpus compare verify' -s q -l quant -x -a '(__canitrun_names quants)' -d 'Quantization'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -s c -l ctx -x -d 'Context length in tokens: 8192, 32k, 256K, 1M'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l kv-type -x -a 'f16 bf16 f32 q8_0 q5_1 q5_0 q4_1 q4_0 iq4_nl turboquant' -d 'KV cache element type: f16, bf16, f32, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl, turboquant'
complete -c canitrun -n '__canitrun_takes page' -l vram -x -d 'A VRAM budget in GB: does the recommended quantization fit, and what does?'
complete -c canitrun -n '__canitrun_takes page fit compare' -l min-quant -x -a '(__canitrun_names quants)' -d 'Lowest quantization a best-quantization choice may pick'
complete -c canitrun -n '__canitrun_takes page compare' -l min-speed -x -d 'Slowest decode, in tokens/s, a best-quantization choice with offload may pick'
complete -c canitrun -n '__canitrun_takes page gpus' -l users -x -d 'Users served at once, each with --ctx tokens'
complete -c canitrun -n '__canitrun_takes page gpus' -l mmproj -r -F -d 'With a .gguf file: a vision projector GGUF, counted in every plan and passed to llama-server'
complete -c canitrun -n '__canitrun_takes page gpus compare' -l offline -d 'Remote models from the cache only, no network'
complete -c canitrun -n '__canitrun_takes page gpus compare' -l timeout -x -d 'Remote models: seconds for the whole answer, all requests and retries'
complete -c canitrun -n '__canitrun_takes page fit compare local verify' -l gpu -x -a '(__canitrun_names gpu-list) auto' -d 'Your GPUs: "RTX 4090", "2x3090", "4090,3090", or auto to detect them'
complete -c canitrun -n '__canitrun_takes page fit compare local verify' -l gpu-spec -r -F -d 'A JSON file describing a GPU the database lacks'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l ram -x -d 'System RAM in GB available for CPU offload'
complete -c canitrun -n '__canitrun_takes page fit compare local' -l ram-bandwidth -x -d 'System RAM bandwidth in GB/s for offloaded layers'
complete -c canitrun -n '__canitrun_takes page fit compare local' -l gpu-memory -x -d 'GB a unified-memory GPU may use'
complete -c canitrun -n '__canitrun_takes page' -l ngl -x -d 'Layers on the GPUs as llama.cpp\'s -ngl counts them'
complete -c canitrun -n '__canitrun_takes page' -l n-cpu-moe -x -d 'Keep the routed experts of the first N layers in RAM'
complete -c canitrun -n '__canitrun_takes page' -l cpu-moe -d 'Keep every layer\'s routed experts in RAM'
complete -c canitrun -n '__canitrun_takes page' -l tensor-split -x -d 'Split layers over the GPUs in these proportions, one per GPU'
complete -c canitrun -n '__canitrun_takes page' -l split-mode -x -a 'layer row tensor' -d 'llama.cpp\'s -sm over several GPUs: layer, row or tensor'
complete -c canitrun -n '__canitrun_takes page' -l host -x -a '(__canitrun_names gpu-list)' -d 'One machine of several, as its GPUs: 8xh100-sxm, 2x3090:ram=128'
complete -c canitrun -n '__canitrun_takes page' -l link -x -d 'Network between the --host machines in Gb/s'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l engine -x -a 'llama.cpp quick vllm exo' -d 'Memory rule: llama.cpp, quick, vllm, exo'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l ubatch -x -d 'llama.cpp: micro-batch size n_ubatch'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l parallel -x -d 'llama.cpp: sequences served at once'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l flash-attn -x -a 'on off auto' -d 'llama.cpp: flash attention on, off, auto'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l reserve-outputs -x -a 'server all' -d 'llama.cpp: outputs the compute buffer is reserved for: server or all'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l cache-type-k -x -a 'f16 bf16 f32 q8_0 q5_1 q5_0 q4_1 q4_0 iq4_nl' -d 'llama.cpp: K cache type: f16, bf16, f32, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l cache-type-v -x -a 'f16 bf16 f32 q8_0 q5_1 q5_0 q4_1 q4_0 iq4_nl' -d 'llama.cpp: V cache type, as --cache-type-k'
complete -c canitrun -n '__canitrun_takes page' -l backend -x -a 'cpu cuda rocm metal vulkan' -d 'llama.cpp: cpu, cuda, rocm, metal, vulkan'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l margin -x -d 'llama.cpp: MiB kept free on every GPU, llama.cpp\'s fitting target'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l cache-ram -x -d 'llama-server: MiB its prompt cache in RAM may grow to, 0 off'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l ctx-checkpoints -x -d 'llama-server: context checkpoints per sequence, SWA and hybrid models'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l no-kv-offload -d 'llama.cpp: KV cache and recurrent state in system RAM'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l no-op-offload -d 'llama.cpp: prompt batches over weights in RAM run on the CPU, not GPU 0'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l blas-build -d 'llama.cpp: plan for a build with a BLAS backend: products over weights in RAM stay on the CPU'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l no-repack -d 'llama.cpp: no second, repacked copy of Q4_0/Q4_K/IQ4_NL/MXFP4 weights on the CPU'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l mtp -d 'llama.cpp: draft with the model\'s own MTP layers'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l load-mode -x -a 'auto none mmap mlock mmap+mlock dio' -d 'llama.cpp: how the weights are read at load: auto, none, mmap, mlock, mmap+mlock, dio'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l no-mmproj -d 'llama-server: text only, no vision projector'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l no-mmproj-offload -d 'llama-server: the vision projector on the CPU, in system RAM'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l draft -x -a '(__canitrun_names models)' -d 'llama.cpp: a draft model for speculative decoding, MODEL, MODEL:QUANT or a local .gguf file'
complete -c canitrun -n '__canitrun_takes page gpus fit compare local' -l also -x -a '(__canitrun_names models)' -d 'llama-server: another model resident at once, MODEL or MODEL:QUANT'
complete -c canitrun -n '__canitrun_takes page' -l gpu-memory-utilization -x -d 'vllm: share of GPU memory vLLM may use'
complete -c canitrun -n '__canitrun_takes fit' -l sort -x -a 'params speed context name' -d 'Order: params, speed, context, name'
complete -c canitrun -n '__canitrun_takes verify' -l model -x -a '(__canitrun_names models)' -d 'The log\'s model, a database id, for an excerpt without the metadata lines'
complete -c canitrun -n '__canitrun_takes models' -l family -x -d 'Only models whose family contains this'
complete -c canitrun -n '__canitrun_takes models gpu-list' -l vendor -x -d 'Only this vendor'
complete -c canitrun -n '__canitrun_takes models' -l since -x -d 'Only models released on or after: 2026-06, 2026-06-15'
complete -c canitrun -n '__canitrun_takes gpu-list' -l min-vram -x -d 'Only GPUs with at least this many GB'
complete -c canitrun -n '__canitrun_takes models gpu-list quants' -l names -d 'Print only the ids, one per line'
complete -c canitrun -n '__canitrun_takes serve' -l port -x -d 'TCP port'
complete -c canitrun -n '__canitrun_takes serve' -l bind -x -d 'Address to listen on'
complete -c canitrun -n '__canitrun_takes serve' -l threads -x -d 'Worker threads answering requests'
complete -c canitrun -n '__canitrun_takes serve mcp' -l allow-remote -d 'Answer remote models, which fetch from the network'
