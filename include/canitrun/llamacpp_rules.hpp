#pragma once
// llama.cpp's rules at 0ad4a86 that the GGUF reader, the config.json reader and the estimates
// share, kept beside the llama.cpp profile (llamacpp_engine.hpp) so each is written once:
// how many KV cells it allocates, which layers slide by default, which architectures gate
// their attention.

#include <cstdint>
#include <string>
#include <string_view>

#include "canitrun/model.hpp"

namespace canitrun {

// The llama.cpp build every rule here follows (the libllama node-llama-cpp 3.22.1 ships;
// tools/accuracy/pin.sh names the same build), as the answers name it. The rules were read at
// 5b4ebc5 (node-llama-cpp 3.21.1) and hold unchanged at 0ad4a86: tools/accuracy/run.sh gives
// all 483 CPU rows of docs/ACCURACY.md byte for byte the same on both builds, and
// src/llama-quant.cpp (the type rules) did not change between them (docs/METHOD.md, "Pinned
// build").
inline constexpr const char* kLlamaCppCommit = "0ad4a86";

// llama.cpp's KV cache, one sequence: the context is padded to a multiple of 256
// (llama-context.cpp) and a sliding-window layer keeps GGML_PAD(min(n_ctx, n_swa + n_ubatch),
// 256) cells (llama-kv-cache-iswa.cpp), not just its window. llama_cache_model returns the
// model with its sliding windows widened so that kv_cache_bytes() gives what llama.cpp
// allocates.
inline constexpr std::uint64_t kLlamaCachePad = 256;
inline constexpr std::uint64_t kLlamaDefaultUbatch = 512;
std::uint64_t llama_padded_context(std::uint64_t context);
// The cells a sliding-window layer keeps of a sequence's n_ctx_seq.
std::uint64_t llama_sliding_cells(std::uint64_t n_ctx_seq, std::uint64_t window,
                                  std::uint64_t n_ubatch);
// The tokens one of n_seq sequences holds: n_ctx / n_seq (llama-context.cpp's n_ctx_seq, before
// padding), so that, not the whole context, bounds one user's window and one stream's speed.
std::uint64_t llama_sequence_context(std::uint64_t n_ctx, std::uint64_t n_seq);
Model llama_cache_model(const Model& model, std::uint64_t context,
                        std::uint64_t n_ubatch = kLlamaDefaultUbatch);

// The sliding-window period llama.cpp sets for an architecture when the file has no pattern
// (llama-model.cpp's set_swa_pattern calls: every 2nd layer global for gemma2, every 6th for
// gemma3 ...); 0 when it sets none. `arch` is llama.cpp's name ("gemma3", "gpt-oss").
std::uint64_t llama_default_swa_period(const std::string& arch);

// The tensors llama.cpp keeps in host memory whatever -ngl says: the input layer
// (LLM_TENSOR_LAYER_INPUT: token_embd, and Gemma 3n / 4's per_layer_token_embd). Only token_embd
// is duplicated as a tied output head.
bool llama_host_input_tensor(std::string_view name);

// The repeating layer a tensor belongs to: "blk.12.attn_v.weight" -> 12; -1 for a tensor
// outside the layers (token_embd, output).
int llama_tensor_layer(std::string_view name);

// A routed expert's tensor (ffn_*_exps.*): what --n-cpu-moe and -ot exps=CPU move to RAM.
bool llama_routed_expert_tensor(std::string_view name);

// Architectures llama.cpp runs with no memory at all (llama_model::create_memory returns
// nullptr: non-causal encoders): no KV cache, and the graph's attention spans the ubatch's own
// tokens. Of those canitrun lays out: bert (BERT, XLM-RoBERTa: bge-m3), nomic-bert and
// gemma-embedding (EmbeddingGemma; an earlier llama.cpp kept a cache for it, "disabled until
// the cacheless SWA logic is fixed", which later builds enabled).
bool llama_arch_keeps_no_memory(std::string_view arch);

// Architectures whose graph picks the output rows (inp_out_ids) after the output norm rather
// than in the last layer, so that the normed hidden state of every token (h_nextn, a drafter's
// input) exists: at 0ad4a86 bailingmoe3, cohere2moe, gemma4, hy_v3, gpt-oss (openai-moe.cpp),
// qwen35, qwen35moe, qwen3next and step35 do so unless embeddings_nextn_masked is set (false by
// default, llama-context.cpp); mimo2 and nemotron_h_moe only when embeddings_nextn is.
bool llama_arch_picks_outputs_last(std::string_view arch);

// What llama-server serves a model for: completions, or, for an embedding or reranking model,
// its /embeddings or /rerank endpoint, which it refuses unless started with --embeddings
// ("This server does not support embeddings. Start it with `--embeddings`") or --reranking
// (params.embedding and pooling_type RANK; tools/server/server-context.cpp at 0ad4a86, lines
// 5149 and 5392; common/arg.cpp lines 3473-3486). A model is one by its data: its GGUF files'
// pooling type (RunInfo::pooling: "rank" a reranker, any other an embedding model), or an
// encoder llama.cpp runs only for embeddings (llama_arch_keeps_no_memory).
enum class LlamaServe { completion, embeddings, reranking };
LlamaServe llama_serve(const Model& model);

// Whether llama.cpp runs --split-mode tensor for an architecture: llm_arch_supports_sm_tensor
// (src/llama-arch.cpp:1130 at 0ad4a86; llama_model_create throws "LLAMA_SPLIT_MODE_TENSOR not
// implemented for architecture" for the others, src/llama-model.cpp:358). 5b4ebc5 refuses the
// same list less hy_v4.
bool llama_arch_supports_tensor_split(std::string_view arch);

// Qwen3-Next and Qwen 3.5: Gated DeltaNet layers, and attention whose q_proj also yields a
// sigmoid gate (llama.cpp builds attn_q at twice the heads; no key says so).
bool llama_gated_delta_net(const std::string& arch);

}  // namespace canitrun
