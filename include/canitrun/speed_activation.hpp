#pragma once
// A prompt's activation traffic: the F32 tensors a layer's ops write and read back that L2
// cannot hold (#34).

#include "canitrun/speed.hpp"

namespace canitrun {

// The bytes one prompt token's activations move through memory on `device`, in micro-batches of
// `batch` tokens. ggml runs a layer op by op, each writing its F32 output for the next to read
// (the norms, the residual sums, the rope, the FFN's gate, up and their product: SpeedWork::
// activations), so each such tensor is written once and read back once: from L2 where it and its
// op's input, as large, fit there together (2 x batch x width x 4 bytes <= Gpu::l2_cache_bytes),
// else from memory. A GPU whose L2 is not in data/gpus is taken to hold them. Small models on a
// slow memory pay most: a DGX Spark (273 GB/s, 24 MiB of L2) moves 14.2 MB a token of
// gemma-3-4b's at -ub 2048, 52 us of the 175 us its pp2048 takes a token, where the products'
// FLOPs left its prompts at 1.50-1.64x their measure, their source left out (#34). The
// quantized products' q8_1 copies of their inputs and a model's extra norms are not counted.
double activation_bytes(const DeviceWork& w, const SpeedWork& work, const GpuDevice& device,
                        double batch);

}  // namespace canitrun
