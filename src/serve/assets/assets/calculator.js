// The live calculator on a model page: each change asks /api/v1/models/{id} (the document of
// `canitrun ID --json` with the same flags) and shows the verdict per device, the split, the
// speed with its band and every command line the CLI prints for it (llama-server per sampling
// mode, Ollama, LM Studio; vllm serve with the vLLM engine). A page of a static copy
// (canitrun site) asks whether a canitrun server answers the API beside it (the response header
// X-Canitrun-Api): then it is live too; else it runs on the page's precomputed grid.
"use strict";
(() => {
  const box = document.getElementById("calculator");
  if (!box) return;
  const model = box.dataset.model, root = box.dataset.root;
  let live = box.dataset.mode === "live";
  const el = (tag, props = {}, ...children) => {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...children);
    return e;
  };
  const gb = (bytes) => (bytes / 1e9).toFixed(1) + " GB";
  const tokens = (n) => n >= 1024 && n % 1024 === 0 ? n / 1024 + "k" : n.toLocaleString("en-US");
  const state = { quant: "", ctx: 8192, kv_type: "f16", flash_attn: "auto", parallel: 1, gpus: [], ram: null,
    engine: "llama.cpp" };
  let formats = {};  // quantization id -> its format (gguf, safetensors, ...)

  const out = el("div", { id: "calc-result", "aria-live": "polite" });
  const quant = el("select", { id: "calc-quant" });
  const ctxRange = el("input", { id: "calc-ctx", type: "range", min: 9, max: 20, step: 1 });
  const ctxText = el("output", { id: "calc-ctx-value" });
  const presets = el("div", { className: "presets" });
  const kv = el("select", { id: "calc-kv" });
  for (const t of ["f16", "bf16", "f32", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl", "turboquant"]) {
    kv.append(el("option", { value: t, textContent: t === "turboquant" ? "TurboQuant" : t }));
  }
  const engine = el("select", { id: "calc-engine" });
  for (const t of ["llama.cpp", "vLLM"]) engine.append(el("option", { value: t, textContent: t }));
  const fa = el("select", { id: "calc-fa" });
  for (const t of ["auto", "on", "off"]) fa.append(el("option", { value: t, textContent: t }));
  const parallel = el("input", { id: "calc-parallel", type: "number", min: 1, max: 64, value: 1 });
  const gpuInput = el("input", { id: "calc-gpu", type: "search", placeholder: "RTX 4090, H100 ...",
    autocomplete: "off" });
  gpuInput.setAttribute("list", "calc-gpu-names");
  const gpuNames = el("datalist", { id: "calc-gpu-names" });
  const chips = el("div", { className: "chips", id: "calc-gpus" });
  const here = el("button", { type: "button", id: "calc-this-machine", textContent: "This machine" });

  const label = (text, ...controls) => el("label", {}, text, ...controls);
  box.append(el("div", { className: "controls" },
    label("Engine", engine),
    label("Quantization", quant),
    label("Context ", ctxText, ctxRange, presets),
    label("KV cache type", kv),
    label("Flash attention", fa),
    label("Parallel sequences (--parallel)", parallel),
    label("GPUs", gpuInput, gpuNames, chips, here)), out);

  const query = () => {
    const p = new URLSearchParams();
    if (state.engine === "vLLM") {
      // vLLM loads the checkpoint's own dtype unless a format it reads is asked for; it sizes
      // its KV pool on the GPUs, so it needs one.
      p.set("engine", "vllm");
      if (state.quant && formats[state.quant] && formats[state.quant] !== "gguf") p.set("quant", state.quant);
      p.set("ctx", String(state.ctx));
      // vLLM has no --parallel: the sequences it serves at once are --users.
      if (state.parallel !== 1) p.set("users", String(state.parallel));
      if (state.gpus.length) p.set("gpu", state.gpus.join(","));
      return p.toString();
    }
    if (state.quant) p.set("quant", state.quant);
    p.set("ctx", String(state.ctx));
    if (state.kv_type !== "f16") p.set("kv_type", state.kv_type);
    if (state.flash_attn !== "auto") p.set("flash_attn", state.flash_attn);
    if (state.parallel !== 1) p.set("parallel", String(state.parallel));
    if (state.gpus.length) p.set("gpu", state.gpus.join(","));
    if (state.ram) p.set("ram", String(state.ram));
    // TurboQuant is a rule of the quick estimate only; llama.cpp has no such cache type.
    if (state.kv_type === "turboquant") p.set("engine", "quick");
    return p.toString();
  };

  const deviceRows = (sel, devices) => {
    const rows = (sel.gpus || []).map((g, i) => el("tr", {},
      el("td", { textContent: "GPU " + i + (devices[i] ? ": " + devices[i].name + " (" + gb(devices[i].memory_bytes) + ")" : "") }),
      el("td", { textContent: gb(g.total_bytes) + " of " + gb(g.capacity_bytes) + " usable" }),
      el("td", { textContent: String(g.layers) }),
      el("td", { textContent: g.fits ? "fits" : "over" })));
    if (sel.ram) {
      rows.push(el("tr", {}, el("td", { textContent: "RAM" }),
        el("td", { textContent: gb(sel.ram.total_bytes) + " of " + gb(sel.ram.capacity_bytes) + " usable" }),
        el("td", { textContent: String(sel.ram.layers) }),
        el("td", { textContent: sel.ram.fits ? "fits" : "over" })));
    }
    // capacity_bytes: what the device may hold (a GPU's memory less the margin kept free), as
    // the CLI's Usable column; the card's whole memory (memory_bytes) is beside its name.
    return el("table", {}, el("thead", {}, el("tr", {}, ...["Device", "Used of usable", "Layers", ""].map(
      (t) => el("th", { textContent: t })))), el("tbody", {}, ...rows));
  };

  // The page's "How to run it locally": each engine's heading and its line(s), as the CLI
  // prints them (run_commands in the document).
  const runCommands = (doc) => {
    const items = (doc.run_commands || []).map((c) => el("div", { className: "run" },
      el("p", { className: "muted", textContent: c.heading }),
      ...(c.command ? [el("code", { className: "calc-run", textContent: c.command })] : []),
      ...(c.then ? [el("code", { className: "calc-run-then", textContent: c.then })] : []),
      ...(c.note ? [el("p", { className: "calc-run-note", textContent: c.note })] : [])));
    return items.length ? [el("div", { id: "calc-commands" }, el("h3", { textContent: "How to run it" }), ...items)] : [];
  };

  // --engine vllm: whether its pool holds the context on the GPUs, and its vllm serve lines.
  const renderVllm = (doc) => {
    const parts = [el("p", { className: "verdict " + (doc.fits ? "fits" : "nofit"), id: "calc-verdict",
      textContent: "vLLM: " + (doc.fits ? "fits" : "does not fit") + " (" + doc.quant + " at " + tokens(doc.context) +
        " on " + (doc.hosts || []).join(", ") + ")" })];
    const lines = doc.commands || [];
    if (lines.length) {
      parts.push(el("div", { id: "calc-commands" }, el("h3", { textContent: "How to run it" }),
        el("div", { className: "run" }, el("p", { className: "muted", textContent: "vLLM" }),
          ...lines.map((c) => el("code", { className: "calc-run", textContent: c })))));
    }
    out.replaceChildren(...parts);
  };

  const render = (doc) => {
    if (doc.engine === "vllm") { renderVllm(doc); return; }
    const hw = doc.hardware;
    if (!hw) {
      const s = doc.smallest_gpu;
      out.replaceChildren(
        el("p", { className: "verdict", id: "calc-verdict",
          textContent: doc.quant + " at " + tokens(doc.context) + ": " + gb(doc.estimate.gpu_bytes) + " of VRAM" +
            (s ? "; the smallest GPU that runs it: " + s.name : "; no single GPU runs it") }),
        el("p", { className: "muted", textContent: "Pick a GPU for the split, the speed and the plan's offload." }),
        ...runCommands(doc));
      return;
    }
    const sel = hw.selected || hw.best || {};
    const plan = sel.plan || "does not fit";
    // The plan's kinds (docs/schema/model-report.schema.json), in words.
    const words = { native: "Runs on the GPUs", expert_offload: "Runs with experts in RAM",
      layer_offload: "Runs with layers in RAM", cpu_only: "Runs on the CPU only", none: "Does not fit" };
    const cls = plan === "native" ? "fits" : plan === "none" ? "nofit" : "offload";
    const verdict = words[plan] || plan;
    const parts = [el("p", { className: "verdict " + cls, id: "calc-verdict",
      textContent: verdict + " (" + plan + "): " + (sel.quant || doc.quant) + " at " + tokens(sel.context || doc.context) })];
    if (sel.gpus) parts.push(deviceRows(sel, (hw.hardware && hw.hardware.gpus) || []));
    const sp = sel.speed;
    if (sp && sp.decode_tokens_per_s) {
      const band = sp.decode_error ? " (\u00b1" + Math.round(sp.decode_error * 100) + " %)" : "";
      parts.push(el("p", { id: "calc-speed", textContent: "Decode: about " + sp.decode_tokens_per_s.toFixed(0) + " tokens/s" + band }));
    }
    if (hw.llama_cpp_command) parts.push(el("code", { id: "calc-command", textContent: hw.llama_cpp_command }));
    out.replaceChildren(...parts, ...runCommands(doc));
  };

  let asked = 0;
  const ask = () => {
    if (state.engine === "vLLM" && !state.gpus.length) {
      out.replaceChildren(el("p", { className: "muted", id: "calc-verdict",
        textContent: "vLLM sizes its KV pool on the GPUs: pick a GPU." }));
      box.dataset.state = "done";
      return;
    }
    const q = query(), n = ++asked;
    box.dataset.query = q;
    box.dataset.state = "loading";
    fetch(root + "api/v1/models/" + encodeURIComponent(model) + "?" + q).then(async (r) => {
      const doc = await r.json();
      if (n !== asked) return;
      if (r.ok) render(doc);
      else out.replaceChildren(el("p", { className: "error", id: "calc-verdict", textContent: doc.error.message }));
      box.dataset.state = "done";
    });
  };

  const setCtx = (n) => {
    state.ctx = n;
    ctxRange.value = String(Math.round(Math.log2(n)));
    ctxText.textContent = tokens(n);
  };
  // A GPU is asked for by its database id (every id names one GPU to --gpu); the chip shows
  // its name.
  const addGpu = (name, id) => {
    if (!id || state.gpus.length >= 8) return;
    state.gpus.push(id);
    const chip = el("span", { className: "chip", textContent: name + " " });
    const x = el("button", { type: "button", textContent: "\u00d7", title: "remove " + name });
    x.addEventListener("click", () => { state.gpus.splice(state.gpus.indexOf(id), 1); chip.remove(); ask(); });
    chip.append(x);
    chips.append(chip);
  };

  // A static copy (canitrun site): the page's own quantization x context matrix is the
  // precomputed grid. Quantization and context pick a cell; the settings that need a plan
  // (KV type, flash attention, --parallel, GPUs) wait for a server.
  const staticGrid = (doc) => {
    const rows = doc.matrix || [];
    quant.replaceChildren(...rows.map((r) => el("option", { value: r.quant, textContent: r.quant })));
    const contexts = rows.length ? rows[0].cells.map((c) => c.context) : [];
    presets.replaceChildren(...contexts.map((n) => {
      const b = el("button", { type: "button", textContent: tokens(n) });
      b.addEventListener("click", () => { setCtx(n); cell(); });
      return b;
    }));
    ctxRange.disabled = true;
    for (const c of [engine, kv, fa, parallel, gpuInput, here]) c.disabled = true;
    const cell = () => {
      const row = rows.find((r) => r.quant === quant.value);
      const c = row && row.cells.find((x) => x.context === state.ctx);
      box.dataset.query = "quant=" + quant.value + "&ctx=" + state.ctx;
      if (!c) return;
      out.replaceChildren(
        el("p", { className: "verdict", id: "calc-verdict", textContent: row.quant + " at " + tokens(c.context) +
          ": " + gb(c.total_bytes) + ", a " + c.card_gb + " GB card (" + c.card_class + ")" }),
        el("p", { className: "muted", textContent: "A static copy: the page's precomputed grid. " +
          "Run 'canitrun serve' for every setting, GPU and command line." }),
        // The copy holds the command lines of its default answer only.
        ...(row.quant === doc.quant && c.context === doc.context ? runCommands(doc) : []));
      box.dataset.state = "done";
    };
    quant.addEventListener("change", cell);
    if (rows.some((r) => r.quant === doc.quant)) quant.value = doc.quant;
    if (contexts.includes(doc.context)) cell();
    box.dataset.state = "done";
  };

  const start = (doc, quants, gpus) => {
    box.dataset.api = live ? "live" : "grid";
    for (const q of quants) {
      quant.append(el("option", { value: q.id, textContent: q.id }));
      formats[q.id] = q.format;
    }
    for (const g of gpus) gpuNames.append(el("option", { value: g.name }));
    state.quant = doc.quant;
    quant.value = doc.quant;
    const max = doc.model.context_extended || doc.model.context_native;
    ctxRange.max = String(Math.floor(Math.log2(max)));
    const marks = [4096, 8192, 32768, 131072, doc.model.context_native, doc.model.context_extended];
    for (const n of [...new Set(marks)].filter((n) => n && n <= max).sort((a, b) => a - b)) {
      const b = el("button", { type: "button", textContent: tokens(n) });
      b.addEventListener("click", () => { setCtx(n); ask(); });
      presets.append(b);
    }
    setCtx(doc.context);
    render(doc);
    if (!live) {
      staticGrid(doc);
      return;
    }
    quant.addEventListener("change", () => { state.quant = quant.value; ask(); });
    engine.addEventListener("change", () => {
      state.engine = engine.value;
      for (const c of [kv, fa]) c.disabled = state.engine === "vLLM";
      ask();
    });
    ctxRange.addEventListener("input", () => { setCtx(2 ** Number(ctxRange.value)); ask(); });
    kv.addEventListener("change", () => { state.kv_type = kv.value; ask(); });
    fa.addEventListener("change", () => { state.flash_attn = fa.value; ask(); });
    parallel.addEventListener("change", () => {
      state.parallel = Math.min(64, Math.max(1, Math.round(Number(parallel.value)) || 1)); ask(); });
    gpuInput.addEventListener("change", () => {
      const name = gpuInput.value.trim();
      gpuInput.value = "";
      const g = gpus.find((x) => x.name === name || x.id === name);
      if (g) { addGpu(g.name, g.id); ask(); }
    });
    here.addEventListener("click", () => fetch(root + "api/v1/system").then((r) => r.json()).then((sys) => {
      // The database's id where detection matched one, else the name the driver reports.
      const found = (sys.gpus || []).map((g) => g.database_id || g.name).filter(Boolean);
      if (!found.length) { out.prepend(el("p", { className: "muted", textContent: "No GPU detected on the server." })); return; }
      state.gpus.splice(0); chips.replaceChildren();
      for (const n of found) addGpu(n, n);
      state.ram = sys.ram_bytes ? Math.floor(sys.ram_bytes / 1e9) : null;
      ask();
    }));
  };

  const json = (path) => fetch(path).then((r) => r.json());
  const load = () => {
    const doc = live ? json(root + "api/v1/models/" + encodeURIComponent(model))
      : json(root + "api/v1/models/" + model + ".json");
    Promise.all([doc, json(root + "api/v1/quants" + (live ? "" : ".json")),
      json(root + "api/v1/gpu-list" + (live ? "" : ".json"))]).then(([d, q, g]) => start(d, q, g));
  };
  if (live) {
    load();
  } else {
    // A static copy: the API document every copy holds, asked with HEAD. A canitrun server
    // (behind the same host, e.g. a proxy for /api/) names itself in a header; a static host
    // does not, and the page keeps to its grid.
    fetch(root + "api/v1/openapi.json", { method: "HEAD", cache: "no-store" })
      .then((r) => { live = r.ok && r.headers.get("X-Canitrun-Api") === "v1"; })
      .catch(() => {})
      .finally(load);
  }
})();
