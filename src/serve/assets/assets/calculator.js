// The live calculator on a model page: each change asks /api/v1/models/{id} (the document of
// `canitrun ID --json` with the same flags) and shows the verdict per device, the split, the
// speed with its band and the llama-server line. On a static site (canitrun site) it shows the
// precomputed default answer and says where the live one is.
"use strict";
(() => {
  const box = document.getElementById("calculator");
  if (!box) return;
  const model = box.dataset.model, root = box.dataset.root, live = box.dataset.mode === "live";
  const el = (tag, props = {}, ...children) => {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...children);
    return e;
  };
  const gb = (bytes) => (bytes / 1e9).toFixed(1) + " GB";
  const tokens = (n) => n >= 1024 && n % 1024 === 0 ? n / 1024 + "k" : n.toLocaleString("en-US");
  const state = { quant: "", ctx: 8192, kv_type: "f16", flash_attn: "auto", parallel: 1, gpus: [], ram: null };

  const out = el("div", { id: "calc-result", "aria-live": "polite" });
  const quant = el("select", { id: "calc-quant" });
  const ctxRange = el("input", { id: "calc-ctx", type: "range", min: 9, max: 20, step: 1 });
  const ctxText = el("output", { id: "calc-ctx-value" });
  const presets = el("div", { className: "presets" });
  const kv = el("select", { id: "calc-kv" });
  for (const t of ["f16", "bf16", "f32", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl", "turboquant"]) {
    kv.append(el("option", { value: t, textContent: t === "turboquant" ? "TurboQuant" : t }));
  }
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
    label("Quantization", quant),
    label("Context ", ctxText, ctxRange, presets),
    label("KV cache type", kv),
    label("Flash attention", fa),
    label("Parallel sequences (--parallel)", parallel),
    label("GPUs", gpuInput, gpuNames, chips, here)), out);

  const query = () => {
    const p = new URLSearchParams();
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
      el("td", { textContent: "GPU " + i + (devices[i] ? ": " + devices[i].name : "") }),
      el("td", { textContent: gb(g.total_bytes) + " of " + gb(g.capacity_bytes) }),
      el("td", { textContent: String(g.layers) }),
      el("td", { textContent: g.fits ? "fits" : "over" })));
    if (sel.ram) {
      rows.push(el("tr", {}, el("td", { textContent: "RAM" }),
        el("td", { textContent: gb(sel.ram.total_bytes) + " of " + gb(sel.ram.capacity_bytes) }),
        el("td", { textContent: String(sel.ram.layers) }),
        el("td", { textContent: sel.ram.fits ? "fits" : "over" })));
    }
    return el("table", {}, el("thead", {}, el("tr", {}, ...["Device", "Memory", "Layers", ""].map(
      (t) => el("th", { textContent: t })))), el("tbody", {}, ...rows));
  };

  const render = (doc) => {
    const hw = doc.hardware;
    if (!hw) {
      const s = doc.smallest_gpu;
      out.replaceChildren(
        el("p", { className: "verdict", id: "calc-verdict",
          textContent: doc.quant + " at " + tokens(doc.context) + ": " + gb(doc.estimate.gpu_bytes) + " of VRAM" +
            (s ? "; the smallest GPU that runs it: " + s.name : "; no single GPU runs it") }),
        el("p", { className: "muted", textContent: "Pick a GPU for the split, the speed and the command line." }));
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
    out.replaceChildren(...parts);
  };

  let asked = 0;
  const ask = () => {
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
  const addGpu = (name) => {
    if (!name || state.gpus.length >= 8) return;
    state.gpus.push(name);
    const chip = el("span", { className: "chip", textContent: name + " " });
    const x = el("button", { type: "button", textContent: "\u00d7", title: "remove " + name });
    x.addEventListener("click", () => { state.gpus.splice(state.gpus.indexOf(name), 1); chip.remove(); ask(); });
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
    for (const c of [kv, fa, parallel, gpuInput, here]) c.disabled = true;
    const cell = () => {
      const row = rows.find((r) => r.quant === quant.value);
      const c = row && row.cells.find((x) => x.context === state.ctx);
      box.dataset.query = "quant=" + quant.value + "&ctx=" + state.ctx;
      if (!c) return;
      out.replaceChildren(
        el("p", { className: "verdict", id: "calc-verdict", textContent: row.quant + " at " + tokens(c.context) +
          ": " + gb(c.total_bytes) + ", a " + c.card_gb + " GB card (" + c.card_class + ")" }),
        el("p", { className: "muted", textContent: "A static copy: the page's precomputed grid. " +
          "Run 'canitrun serve' for every setting, GPU and command line." }));
      box.dataset.state = "done";
    };
    quant.addEventListener("change", cell);
    if (rows.some((r) => r.quant === doc.quant)) quant.value = doc.quant;
    if (contexts.includes(doc.context)) cell();
    box.dataset.state = "done";
  };

  const start = (doc, quants, gpus) => {
    for (const q of quants) quant.append(el("option", { value: q.id, textContent: q.id }));
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
    ctxRange.addEventListener("input", () => { setCtx(2 ** Number(ctxRange.value)); ask(); });
    kv.addEventListener("change", () => { state.kv_type = kv.value; ask(); });
    fa.addEventListener("change", () => { state.flash_attn = fa.value; ask(); });
    parallel.addEventListener("change", () => {
      state.parallel = Math.min(64, Math.max(1, Math.round(Number(parallel.value)) || 1)); ask(); });
    gpuInput.addEventListener("change", () => {
      const name = gpuInput.value.trim();
      gpuInput.value = "";
      if (gpus.some((g) => g.name === name || g.id === name)) { addGpu(name); ask(); }
    });
    here.addEventListener("click", () => fetch(root + "api/v1/system").then((r) => r.json()).then((sys) => {
      // The database's id where detection matched one, else the name the driver reports.
      const found = (sys.gpus || []).map((g) => g.database_id || g.name).filter(Boolean);
      if (!found.length) { out.prepend(el("p", { className: "muted", textContent: "No GPU detected on the server." })); return; }
      state.gpus.splice(0); chips.replaceChildren();
      for (const n of found) addGpu(n);
      state.ram = sys.ram_bytes ? Math.floor(sys.ram_bytes / 1e9) : null;
      ask();
    }));
  };

  const json = (path) => fetch(path).then((r) => r.json());
  const doc = live ? json(root + "api/v1/models/" + encodeURIComponent(model))
    : json(root + "api/v1/models/" + model + ".json");
  Promise.all([doc, json(root + "api/v1/quants" + (live ? "" : ".json")),
    json(root + "api/v1/gpu-list" + (live ? "" : ".json"))]).then(([d, q, g]) => start(d, q, g));
})();
