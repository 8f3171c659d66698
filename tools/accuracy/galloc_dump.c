// galloc_dump.so: an LD_PRELOAD shim that writes the graph llama.cpp reserves its compute
// buffer for, node by node, so that tools/accuracy/galloc_replay.py can replay ggml-alloc on it
// and say which tensors are live at the buffer's peak (how the DeepSeek Sparse Attention rule,
// dsa_bytes in src/core/engines/llamacpp_engine.cpp, was read off). Only for working on the
// compute-buffer rules; nothing runs it in CI. With the harness's llama.cpp (run.sh's cache):
//   bins=~/.cache/canitrun-accuracy-3.22.1/npm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
//   src=~/.cache/canitrun-accuracy-3.22.1/llama.cpp
//   gcc -shared -fPIC -O1 -I$src/ggml/include tools/accuracy/galloc_dump.c -o galloc_dump.so
//       -ldl $bins/libggml-base.so                            (one command)
//   GALLOC_DUMP_DIR=/tmp/g LD_PRELOAD=$PWD/galloc_dump.so build-accuracy/llama_probe $bins
//       FILE.gguf 32768:512:1:on:f16:f16                      (one command)
//   python3 tools/accuracy/galloc_replay.py /tmp/g/g0.txt $src/ggml/include/ggml.h
// A no_alloc context reserves through ggml_gallocr_reserve_n_size (ggml-alloc.c), which the
// scheduler calls across the library boundary, so the preload sees it. One line per leaf (L)
// and node (N): id, op, bytes, view_src, view_offs, flags, data set, buffer set, type, ne, nb,
// the ten sources, name; and gN.ids, each one's buffer id. Under tools/accuracy/cuda.sh (its
// CUDA_GALLOC_CASES) the same shim, built against the CUDA build's libggml-base, dumps the
// CUDA reservation (ggml_gallocr_reserve_n); replay that with galloc_replay.py --buffer 0.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

// ggml-impl.h's layout of a graph (not public): the fields read here come first.
struct ggml_cgraph {
    int size;
    int n_nodes;
    int n_leafs;
    struct ggml_tensor** nodes;
    struct ggml_tensor** grads;
    struct ggml_tensor** grad_accs;
    struct ggml_tensor** leafs;
};

static int g_count = 0;

static void dump_tensor(FILE* f, const char* kind, const struct ggml_tensor* t) {
    fprintf(f, "%s %p %d %zu %p %zu %d %d %d %d %lld,%lld,%lld,%lld %zu,%zu,%zu,%zu", kind,
            (const void*)t, (int)t->op, ggml_nbytes(t), (void*)t->view_src, t->view_offs, t->flags,
            t->data != NULL, t->buffer != NULL, (int)t->type, (long long)t->ne[0],
            (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3], t->nb[0], t->nb[1],
            t->nb[2], t->nb[3]);
    for (int j = 0; j < GGML_MAX_SRC; j++) fprintf(f, " %p", (void*)t->src[j]);
    fprintf(f, " %s\n", t->name);
}

// Writes DIR/gN.txt (the graph) and DIR/gN.ids (each leaf's, then each node's buffer id, one a
// line, as the scheduler passes them: the backend's index, 0 for the first GPU); returns N, or
// -1 without GALLOC_DUMP_DIR.
static int dump_graph(const struct ggml_cgraph* graph, const int* node_ids, const int* leaf_ids) {
    const char* dir = getenv("GALLOC_DUMP_DIR");
    if (dir == NULL) return -1;
    const int n = g_count++;
    char path[1024];
    snprintf(path, sizeof path, "%s/g%d.txt", dir, n);
    FILE* f = fopen(path, "w");
    if (f != NULL) {
        for (int i = 0; i < graph->n_leafs; i++) dump_tensor(f, "L", graph->leafs[i]);
        for (int i = 0; i < graph->n_nodes; i++) dump_tensor(f, "N", graph->nodes[i]);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/g%d.ids", dir, n);
    f = fopen(path, "w");
    if (f != NULL) {
        for (int i = 0; i < graph->n_leafs; i++) fprintf(f, "%d\n", leaf_ids ? leaf_ids[i] : 0);
        for (int i = 0; i < graph->n_nodes; i++) fprintf(f, "%d\n", node_ids ? node_ids[i] : 0);
        fclose(f);
    }
    return n;
}

// A no_alloc context (llama_probe, the CPU harness) reserves through this one.
void ggml_gallocr_reserve_n_size(ggml_gallocr_t galloc, struct ggml_cgraph* graph,
                                 const int* node_ids, const int* leaf_ids, size_t* sizes) {
    typedef void (*real_fn)(ggml_gallocr_t, struct ggml_cgraph*, const int*, const int*, size_t*);
    static real_fn real = NULL;
    if (real == NULL) real = (real_fn)dlsym(RTLD_NEXT, "ggml_gallocr_reserve_n_size");
    const int n = dump_graph(graph, node_ids, leaf_ids);
    real(galloc, graph, node_ids, leaf_ids, sizes);
    if (n >= 0) fprintf(stderr, "galloc_dump: g%d.txt reserved %zu B\n", n, sizes[0]);
}

// A context that allocates (cuda_probe on a GPU: ggml_backend_sched_reserve) through this one;
// its graph is the scheduler's copy with the splits' input copies and the backends' alloc deps.
bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, struct ggml_cgraph* graph, const int* node_ids,
                            const int* leaf_ids) {
    typedef bool (*real_fn)(ggml_gallocr_t, struct ggml_cgraph*, const int*, const int*);
    static real_fn real = NULL;
    if (real == NULL) real = (real_fn)dlsym(RTLD_NEXT, "ggml_gallocr_reserve_n");
    const int n = dump_graph(graph, node_ids, leaf_ids);
    const bool ok = real(galloc, graph, node_ids, leaf_ids);
    if (n >= 0) {
        fprintf(stderr, "galloc_dump: g%d.txt reserved, buffer 0: %zu B\n", n,
                ggml_gallocr_get_buffer_size(galloc, 0));
    }
    return ok;
}
