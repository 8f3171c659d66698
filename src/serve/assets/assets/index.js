// The index: search over the models and GPUs the API (or the static site's JSON) lists.
"use strict";
(() => {
  const live = document.documentElement.dataset.mode !== "static";
  const api = (name) => "api/v1/" + name + (live ? "" : ".json");
  const modelHref = (id) => live ? "models/" + encodeURIComponent(id) : "models/" + id + ".html";
  const gpuHref = (id) => live ? "fit?gpu=" + encodeURIComponent(id) : "gpus/" + id + ".html";
  let models = [], gpus = [];
  const item = (href, text) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = href; a.textContent = text; li.append(a); return li;
  };
  const show = () => {
    const q = document.getElementById("search").value.trim().toLowerCase();
    const hit = (...fields) => !q || fields.some((f) => String(f || "").toLowerCase().includes(q));
    const ms = models.filter((m) => hit(m.id, m.name, m.family, m.vendor));
    const gs = gpus.filter((g) => hit(g.id, g.name, g.vendor));
    document.getElementById("models").replaceChildren(...ms.map((m) => item(modelHref(m.id), m.name)));
    document.getElementById("gpus").replaceChildren(...gs.map((g) => item(gpuHref(g.id), g.name + " (" + g.vram_gb + " GB)")));
    document.getElementById("model-count").textContent = "(" + ms.length + ")";
    document.getElementById("gpu-count").textContent = "(" + gs.length + ")";
  };
  Promise.all([fetch(api("models")).then((r) => r.json()), fetch(api("gpu-list")).then((r) => r.json())])
    .then(([m, g]) => { models = m; gpus = g; show(); });
  document.getElementById("search").addEventListener("input", show);
})();
