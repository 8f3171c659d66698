# The llama.cpp build canitrun's rules follow, named once; sourced by run.sh and cuda_prepare.sh.
# nlc_version: the npm package node-llama-cpp whose prebuilt libllama (and bundled source) the
# harness loads; llama_commit: the llama.cpp commit those binaries were built from (the "commit"
# string libggml-base.so and libllama-common.so carry beside ggml's version; run.sh checks it).
# include/canitrun/llamacpp_rules.hpp's kLlamaCppCommit names the same commit: move them
# together, after tools/accuracy/run.sh on the new build (docs/METHOD.md, "Pinned build").
# NLC_VERSION and LLAMA_COMMIT in the environment try another build (with its own
# ACCURACY_CACHE) before the pin moves.
#   3.21.1 = 5b4ebc5 (llama.cpp release v0.4.0, bundle 80fb11a of 2026-09-12): until 2026-12-05
#   3.22.1 = 0ad4a86 (llama.cpp release v0.5.0, bundle de3ff81 of 2026-09-28)
nlc_version="${NLC_VERSION:-3.22.1}"
llama_commit="${LLAMA_COMMIT:-0ad4a86}"
