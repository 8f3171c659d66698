#!/usr/bin/env python3
"""Replays ggml-alloc (ggml/src/ggml-alloc.c at llama.cpp 0ad4a86: ggml_gallocr_alloc_graph_impl,
ggml_gallocr_allocate_node with its in-place reuse, ggml_dyn_tallocr's best-fit free blocks) on a
graph galloc_dump.c wrote, and prints the buffer's size, the node where it peaks, and every live
tensor there by address, holes included: which tensors a compute-buffer rule has to count.
Usage: galloc_replay.py DUMP.txt GGML_H [--gpu] [--trace N] (GGML_H: ggml.h of the same build,
for the op numbers; --gpu: the graph as a GPU that holds every layer and the head would allocate
it; --trace N: from node N on, each node with where it is allocated and what it frees, and the
free blocks before it: how the output-phase rows of compute_bytes' output_phase_bytes were read).
On DeepSeek V3.2 at ubatch 512 and 32768 cells it gives 836,843,520 B, llama.cpp's own figure
(and to the byte on every CPU reservation tried: DeepSeek V3.2, GLM-5, GLM-5.2, Qwen3-30B-A3B,
Qwen3-Next). One buffer type, one chunk. --gpu, from the same CPU dump, matches the H200's CUDA0
buffers (validation/cuda-h200/, 80fb11a) for Qwen3-30B-A3B at 32768 cells, ubatch 512 and 2048
(300.75 / 1203.00 MiB), and Qwen3-Next at 4096 and 32768 (308.76 / 304.75, measured 308.78 /
304.77), not for Qwen3-30B-A3B with 4 sequences (300.75, measured 346.76) or Qwen3-Next at
131072 cells (304.75, measured 416.75): what CUDA adds there is not in the CPU graph's
allocation (a backend's alloc deps, ggml_backend_cuda_graph_optimize, or another split)."""
import re
import sys

ALIGN = 32  # ggml-impl.h TENSOR_ALIGNMENT, the CPU buffer type's alignment
INPLACE = {  # ggml-alloc.c ggml_op_can_inplace
    "FILL", "SCALE", "DIAG_MASK_ZERO", "DIAG_MASK_INF", "ADD", "ADD_ID", "ADD1", "SUB", "MUL",
    "DIV", "SQR", "SQRT", "LOG", "UNARY", "ROPE", "ROPE_BACK", "SILU_BACK", "RMS_NORM",
    "RMS_NORM_BACK", "CLAMP", "SOFT_MAX", "SOFT_MAX_BACK"}
FLAG_INPUT, FLAG_OUTPUT = 1, 2


def aligned(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


def op_names(ggml_h):
    text = open(ggml_h).read()
    body = text[text.index("enum ggml_op {"):]
    body = body[:body.index("GGML_OP_COUNT,")]
    return re.findall(r"GGML_OP_([A-Z0-9_]+)", body)


class Tensor:
    def __init__(self, fields):
        self.kind, self.id, op, size, view_src, view_offs, flags, data, buf, typ, ne, nb = fields[:12]
        self.op, self.size, self.view_offs, self.flags = int(op), int(size), int(view_offs), int(flags)
        self.view_src = None if view_src == "(nil)" else view_src
        self.external = data == "1" or buf == "1"  # ggml_gallocr_is_allocated: data or buffer set
        self.layout = (typ, ne, nb)
        self.src = [None if s == "(nil)" else s for s in fields[12:22]]
        self.name = " ".join(fields[22:])
        self.n_children = self.n_views = 0
        self.allocated = False
        self.addr = 0


class Blocks:
    """ggml_dyn_tallocr: free blocks sorted by offset, the last one the open end."""

    def __init__(self):
        self.free = [[0, 1 << 62]]
        self.max = 0
        self.trace = False

    def log(self, what, addr, size):
        if self.trace:
            print(f"    {what} {addr / 1048576:10.2f} +{size / 1048576:.2f}")

    def alloc(self, size):
        size = aligned(size)
        best = None
        for i, (_, bsize) in enumerate(self.free[:-1]):
            if bsize >= size and (best is None or bsize <= self.free[best][1]):
                best = i
        if best is None:
            best = len(self.free) - 1
        block = self.free[best]
        addr = block[0]
        block[0] += size
        block[1] -= size
        if block[1] == 0:
            self.free.pop(best)
        self.max = max(self.max, addr + size)
        self.log("alloc", addr, size)
        return addr

    def release(self, addr, size):
        size = aligned(size)
        self.log("free ", addr, size)
        fb = self.free
        for i, block in enumerate(fb):
            if block[0] + block[1] == addr:
                block[1] += size
                if i + 1 < len(fb) and block[0] + block[1] == fb[i + 1][0]:
                    block[1] += fb.pop(i + 1)[1]
                return
            if addr + size == block[0]:
                block[0] = addr
                block[1] += size
                if i > 0 and fb[i - 1][0] + fb[i - 1][1] == block[0]:
                    fb[i - 1][1] += fb.pop(i)[1]
                return
        k = 0
        while k < len(fb) and fb[k][0] < addr:
            k += 1
        fb.insert(k, [addr, size])


def load(path):
    tensors, leafs, nodes = {}, [], []
    for line in open(path):
        t = Tensor(line.rstrip("\n").split(" "))
        tensors[t.id] = t
        (leafs if t.kind == "L" else nodes).append(t)
    return tensors, leafs, nodes


def as_gpu(tensors, leafs, nodes):
    """The graph as one GPU holding every layer and the head sees it (ggml-backend.cpp
    ggml_backend_sched_split_graph): the token embeddings' GET_ROWS stays with the host's
    token_embd, and every tensor a GPU node reads from the host (the graph's inputs, views of
    them, the embeddings) becomes a copy, a node at the start of the GPU's split (with one
    GPU, n_copies 1: not flagged, so freed after its last reader like any node)."""
    def on_host(t):
        if t.flags & FLAG_INPUT and not t.external:
            return True
        if t.view_src is not None and on_host(tensors[t.view_src]):
            return True
        return t.kind == "N" and t.op_name == "GET_ROWS" and tensors[t.src[0]].name == "token_embd.weight"
    copies, gpu_nodes = {}, []
    for node in nodes:
        if on_host(node):
            continue
        for j, sid in enumerate(node.src):
            if sid is None or not on_host(tensors[sid]):
                continue
            if sid not in copies:
                src = tensors[sid]
                copy = Tensor([ "N", sid + "#gpu", "0", str(src.size), "(nil)", "0",
                                "0", "0", "0", *src.layout]
                              + ["(nil)"] * 10 + [src.name + "#gpu"])
                copy.op_name = "NONE"
                tensors[copy.id] = copies[sid] = copy
            node.src[j] = copies[sid].id
        gpu_nodes.append(node)
    return tensors, [l for l in leafs if not on_host(l)], list(copies.values()) + gpu_nodes


def replay(tensors, leafs, nodes, inplace_ops, trace_from=None):
    blocks = Blocks()
    live = {}

    def reuse(node, parent, owner):
        node.addr = parent.addr
        parent.allocated = owner.allocated = False
        if aligned(owner.size) > aligned(node.size):
            blocks.release(owner.addr + aligned(node.size), aligned(owner.size) - aligned(node.size))
        live.pop(owner.id, None)
        live[node.id] = node

    def allocate(node):
        if node.external or node.allocated or node.view_src is not None:
            return
        node.allocated = True
        if node.op in inplace_ops:
            for sid in filter(None, node.src):
                parent = tensors[sid]
                if not parent.allocated or parent.flags & FLAG_OUTPUT or parent.layout != node.layout:
                    continue
                if parent.view_src is not None and tensors[parent.view_src].flags & FLAG_OUTPUT:
                    continue
                if parent.n_children != 1 or parent.n_views != 0:
                    continue
                if parent.view_src is None:
                    return reuse(node, parent, parent)
                owner = tensors[parent.view_src]
                if owner.n_views == 1 and owner.n_children == 0 and parent.view_offs == 0:
                    return reuse(node, parent, owner)
        node.addr = blocks.alloc(node.size)
        live[node.id] = node

    def release(t):
        if t.flags & FLAG_OUTPUT:
            return
        blocks.release(t.addr, t.size)
        t.allocated = False
        live.pop(t.id, None)

    for leaf in leafs:
        allocate(leaf)
    for node in nodes:
        if node.view_src is not None and node.op != 0:
            tensors[node.view_src].n_views += 1
        if node.flags & FLAG_INPUT:
            allocate(node)
        for sid in filter(None, node.src):
            tensors[sid].n_children += 1
            if tensors[sid].flags & FLAG_INPUT:
                allocate(tensors[sid])
    peak = None
    for i, node in enumerate(nodes):
        if trace_from is not None and i >= trace_from:
            blocks.trace = True
            holes = ", ".join(f"{a / 1048576:.2f}+{s / 1048576:.2f}" for a, s in blocks.free[:-1])
            print(f"{i} {node.op_name} {node.name} {node.size / 1048576:.2f}  (free: {holes})")
        for sid in filter(None, node.src):
            allocate(tensors[sid])
        before = blocks.max
        allocate(node)
        if blocks.max > before:
            peak = (i, node.name, sorted(live.values(), key=lambda t: t.addr), list(blocks.free[:-1]))
        for sid in filter(None, node.src):
            parent = tensors[sid]
            parent.n_children -= 1
            if parent.n_children or parent.n_views:
                continue
            if parent.view_src is not None:
                owner = tensors[parent.view_src]
                owner.n_views -= 1
                if owner.n_views == 0 and owner.n_children == 0 and owner.allocated:
                    release(owner)
            elif parent.allocated:
                release(parent)
    return blocks.max, peak


def main():
    global ALIGN
    names = op_names(sys.argv[2])
    tensors, leafs, nodes = load(sys.argv[1])
    for t in tensors.values():
        t.op_name = names[t.op]
    if "--gpu" in sys.argv:
        ALIGN = 128  # ggml-cuda.cu: the CUDA buffer type's alignment
        tensors, leafs, nodes = as_gpu(tensors, leafs, nodes)
    inplace = {i for i, n in enumerate(names) if n in INPLACE}
    trace = int(sys.argv[sys.argv.index("--trace") + 1]) if "--trace" in sys.argv else None
    size, (index, name, live, holes) = replay(tensors, leafs, nodes, inplace, trace)
    mib = 1 << 20
    print(f"buffer {size} B ({size / mib:.2f} MiB); peak at node {index} ({name})")
    try:
        for t in live:
            print(f"{t.addr / mib:10.2f} {t.size / mib:10.2f}  {t.name}")
    except BrokenPipeError:  # | head
        sys.exit(0)
    print("holes:", ", ".join(f"{a / mib:.2f}+{s / mib:.2f}" for a, s in holes))


if __name__ == "__main__":
    main()
