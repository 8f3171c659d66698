#!/usr/bin/env python3
"""Replays ggml-alloc (ggml/src/ggml-alloc.c at llama.cpp 0ad4a86: ggml_gallocr_alloc_graph_impl,
ggml_gallocr_allocate_node with its in-place reuse, ggml_dyn_tallocr's best-fit free blocks) on a
graph galloc_dump.c wrote, and prints the buffer's size, the node where it peaks, and every live
tensor there by address, holes included: which tensors a compute-buffer rule has to count.
Usage: galloc_replay.py DUMP.txt GGML_H [--gpu | --cuda | --cuda-topk | --buffer N] [--trace N]
(GGML_H: ggml.h of the same build, for the op numbers). --gpu: a CPU dump as a GPU that holds
every layer and the head would allocate it; --cuda: that, with the tensors CUDA keeps alive for
its MoE reduction fusion (cuda_alloc_deps); --cuda-topk: and for its top-k gating fusion too;
--buffer N: a dump of a device's own reservation (cuda.sh's CUDA_GALLOC_CASES), buffer N of
it; --trace N: from node N on, each node with where it is allocated and what
it frees, and the free blocks before it (how output_phase_bytes' output-phase rows were read).
On DeepSeek V3.2 at ubatch 512 and 32768 cells it gives 836,843,520 B, llama.cpp's own figure
(and to the byte on every CPU reservation tried: DeepSeek V3.2, GLM-5, GLM-5.2, Qwen3-30B-A3B,
Qwen3-Next). One buffer type, one chunk. --cuda, from 0ad4a86's CPU dumps, gives the H200's
CUDA0 buffers (validation/cuda-h200/, 80fb11a) to 0.01 MiB on all 15 settings tried (MiB):
Qwen3-30B-A3B 300.75 and 1203.00 at 32768 cells, ubatch 512 / 2048, and 346.76 with 4
sequences of 2048 (--gpu: 300.75); Qwen3-Next 308.78, 304.77 and 416.75 at 4096, 32768 and
131072 cells (--gpu: 308.76, 304.75, 304.75); Qwen3.5-35B-A3B 521.02 and 2084.06 at 32768
cells, ubatch 512 / 2048 (--gpu: 493.00, 1972.00), 493.02 at 131072, 499.02 with 4 sequences;
gpt-oss-20b 404.00 at 32768 and 131072, 406.77 with 4 sequences; Mixtral 8x7B 224.01 and
320.01 at 32768 and 131072. --cuda-topk misses three of them by 2 to 3 MiB (342.76, 414.75,
311.80): the measured build kept no top-k gating's tensors at ubatch 512, 0ad4a86's source
would (unmeasured)."""
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


def dims(t):
    return [int(x) for x in t.layout[1].split(",")], [int(x) for x in t.layout[2].split(",")]


def f32_contiguous(t):
    """ggml_is_contiguous for an f32 tensor (dimensions of one element may have any stride)."""
    if t is None or t.layout[0] != "0":
        return False
    ne, nb = dims(t)
    expect = 4
    for n, b in zip(ne, nb):
        if n != 1 and b != expect:
            return False
        expect = b * n if n != 1 else expect
    return True


def moe_reduction(tensors, nodes, i):
    """ggml-cuda.cu's ggml_cuda_match_moe_weighted_reduction at node i: (experts x scale) x
    router weights, or experts x router weights, then n_used views of it summed by n_used - 1
    ADDs (build_moe_ffn's moe_out). Returns (node count, the last ADD, the tensors kept)."""
    first = nodes[i]
    if first.op_name != "MUL" or not f32_contiguous(first):
        return None

    def split(mul):
        a, b = (tensors[s] if s else None for s in mul.src[:2])
        shape = dims(mul)[0]
        full = lambda t: f32_contiguous(t) and dims(t)[0] == shape  # noqa: E731
        weights = lambda t: f32_contiguous(t) and dims(t)[0] == [1] + shape[1:]  # noqa: E731
        if full(a) and weights(b):
            return a, b
        if full(b) and weights(a):
            return b, a
        return None
    weighted, kept, muls = first, None, 1
    if i + 1 < len(nodes):
        second = nodes[i + 1]
        outer, inner = (split(second) if second.op_name == "MUL" and f32_contiguous(second)
                        else None), split(first)
        if outer and outer[0] is first and inner:
            weighted, kept, muls = second, [inner[0], outer[1], inner[1]], 2
    if kept is None:
        inner = split(first)
        if inner is None:
            return None
        kept = list(inner)
    n_used = dims(weighted)[0][1]
    count = 2 * n_used + muls - 1
    if not 2 <= n_used <= 15 or i + count > len(nodes):
        return None
    views = adds = 0
    for node in nodes[i + muls:i + count]:
        if node.op_name == "VIEW" and node.view_src == weighted.id:
            views += 1
        elif node.op_name == "ADD" and views >= 2 and adds + 1 < views:
            adds += 1
        else:
            return None
    if views != n_used or adds != n_used - 1:
        return None
    return count, nodes[i + count - 1], kept


def topk_moe(tensors, nodes, i):
    """graph_optimize's top-k MoE fusion at node i (ggml_cuda_topk_moe_fusion without the
    delayed softmax): gating (SOFT_MAX without mask, or a UNARY: sigmoid), RESHAPE, [bias ADD],
    ARGSORT, VIEW, GET_ROWS, [RESHAPE SUM_ROWS CLAMP DIV RESHAPE], [SCALE]. Returns its node
    count; graph_optimize keeps every node of it and their sources until the node after it."""
    def at(j, op, src0=None):
        return j < len(nodes) and nodes[j].op_name == op and (src0 is None or nodes[j].src[0] == src0.id)
    gate = nodes[i]
    if not (gate.op_name == "UNARY" or (gate.op_name == "SOFT_MAX" and gate.src[1] is None)):
        return None
    j = i + 1
    if not at(j, "RESHAPE", gate):
        return None
    probs = nodes[j]
    j += 1
    bias = at(j, "ADD", gate)
    j += bias
    if not at(j, "ARGSORT", nodes[j - 1] if bias else gate):
        return None
    n_expert = dims(nodes[j])[0][0]
    j += 1
    if not at(j, "VIEW", nodes[j - 1]) or not at(j + 1, "GET_ROWS", probs):
        return None
    if nodes[j + 1].src[1] != nodes[j].id:
        return None
    j += 2
    if (at(j, "RESHAPE", nodes[j - 1]) and at(j + 1, "SUM_ROWS", nodes[j]) and
            at(j + 2, "CLAMP", nodes[j + 1]) and at(j + 3, "DIV", nodes[j]) and
            nodes[j + 3].src[1] == nodes[j + 2].id and at(j + 4, "RESHAPE", nodes[j + 3])):
        j += 5
    j += at(j, "SCALE", nodes[j - 1])
    # ggml_cuda_should_use_topk_moe: a power of two up to 512, or 288 / 576 experts
    if ((n_expert & (n_expert - 1)) or n_expert > 512) and n_expert not in (288, 576):
        return None
    return j - i if j < len(nodes) else None


def cuda_alloc_deps(tensors, nodes, topk):
    """ggml-cuda.cu's ggml_backend_cuda_graph_optimize (llama.cpp PR #27301, 2026-08) asks the
    scheduler to keep tensors alive for its fusions (add_alloc_dep) unless
    GGML_CUDA_DISABLE_FUSION: the MoE reduction's experts, scale and router weights until its
    last ADD (PR #25952); with `topk` (0ad4a86's source) also every node of a top-k MoE gating
    with its sources until the node after it. ggml-backend.cpp puts each kept set in a
    GGML_OP_NONE view after that node, with the kept tensors as its sources: ggml-alloc frees
    them after it, and never counts it a view."""
    uses = {}
    for node in nodes:
        for sid in filter(None, node.src):
            uses[sid] = uses.get(sid, 0) + 1

    def fusable(group):  # ggml_can_fuse_subgraph: no intermediate read outside the group
        ids = [s for n in group for s in n.src]
        return all(n is group[-1] or n.op_name == "VIEW" or uses.get(n.id, 0) == ids.count(n.id)
                   for n in group)
    keep = {}
    i = 0
    while i < len(nodes):
        m = moe_reduction(tensors, nodes, i)
        count = topk_moe(tensors, nodes, i) if topk and not m else None
        if m:
            count, until, kept = m
            keep.setdefault(until.id, []).extend(kept)
            i += count
        elif count and fusable(nodes[i:i + count]):
            group = nodes[i:i + count]
            inside = {n.id for n in group}
            for n in group:
                keep.setdefault(nodes[i + count].id, []).extend(
                    [n] + [tensors[s] for s in n.src if s and s not in inside])
            i += count
        else:
            i += 1
    out = []
    for node in nodes:
        out.append(node)
        kept = list(dict.fromkeys(keep.get(node.id, [])))
        for k in range(0, len(kept), 10):
            part = kept[k:k + 10]
            dep = Tensor(["N", f"{node.id}#dep{k}", "0", "0", part[0].id, "0", "0", "0", "0",
                          *part[0].layout] + [t.id for t in part] + ["(nil)"] * (10 - len(part))
                         + [node.name + "#dep"])
            dep.op_name = "NONE"
            tensors[dep.id] = dep
            out.append(dep)
    return out


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
    if "--buffer" in sys.argv:
        # A device's own reservation (galloc_dump.c under cuda.sh): the scheduler's graph copy,
        # with the splits' input copies and the backends' alloc deps in it; only the tensors of
        # that buffer (gN.ids: the backend's index, 0 for the first GPU) are allocated here.
        ALIGN = 128  # ggml-cuda.cu: the CUDA buffer type's alignment
        want = sys.argv[sys.argv.index("--buffer") + 1]
        ids = open(sys.argv[1].rsplit(".", 1)[0] + ".ids").read().split()
        for t, buffer_id in zip(leafs + nodes, ids):
            t.external = t.external or buffer_id != want
    elif any(f in sys.argv for f in ("--gpu", "--cuda", "--cuda-topk")):
        ALIGN = 128  # ggml-cuda.cu: the CUDA buffer type's alignment
        tensors, leafs, nodes = as_gpu(tensors, leafs, nodes)
    if "--cuda" in sys.argv or "--cuda-topk" in sys.argv:
        nodes = cuda_alloc_deps(tensors, nodes, "--cuda-topk" in sys.argv)
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
