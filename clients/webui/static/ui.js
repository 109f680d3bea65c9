// The web view's only script: confirm dialogs, and zoom, pan and hover for the tool graph.
// No framework, no build step; every page works without it.
"use strict";

document.addEventListener("submit", (event) => {
  const question = event.target.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});

function setUpGraph(box) {
  const svg = box.querySelector("svg");
  if (!svg) return;
  let scale = 1, x = 0, y = 0, dragging = null;
  const apply = () => { svg.style.transform = `translate(${x}px, ${y}px) scale(${scale})`; };
  const fit = () => {
    const width = svg.viewBox.baseVal.width || svg.getBBox().width;
    scale = Math.min(1, box.clientWidth / width); x = 0; y = 0; apply();
  };
  const zoom = (factor, cx, cy) => {
    const next = Math.min(8, Math.max(0.1, scale * factor));
    x = cx - (cx - x) * (next / scale); y = cy - (cy - y) * (next / scale); scale = next; apply();
  };
  box.addEventListener("wheel", (event) => {
    event.preventDefault();
    const r = box.getBoundingClientRect();
    zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, event.clientX - r.left, event.clientY - r.top);
  }, { passive: false });
  box.addEventListener("mousedown", (event) => { dragging = [event.clientX - x, event.clientY - y]; });
  window.addEventListener("mouseup", () => { dragging = null; });
  window.addEventListener("mousemove", (event) => {
    if (dragging) { x = event.clientX - dragging[0]; y = event.clientY - dragging[1]; apply(); }
  });
  const buttons = box.previousElementSibling && box.previousElementSibling.classList.contains("zoom-buttons")
    ? box.previousElementSibling.querySelectorAll("[data-zoom]") : [];
  buttons.forEach((button) => button.addEventListener("click", () => {
    const factor = parseFloat(button.getAttribute("data-zoom"));
    if (factor === 0) fit(); else zoom(factor, box.clientWidth / 2, box.clientHeight / 2);
  }));
  svg.querySelectorAll("g[data-tool]").forEach((node) => {
    const tool = node.getAttribute("data-tool");
    node.addEventListener("mouseenter", () => {
      svg.classList.add("hovering"); node.classList.add("hl");
      svg.querySelectorAll("path[data-source]").forEach((edge) => {
        if (edge.getAttribute("data-source") === tool || edge.getAttribute("data-target") === tool) edge.classList.add("hl");
      });
    });
    node.addEventListener("mouseleave", () => {
      svg.classList.remove("hovering"); node.classList.remove("hl");
      svg.querySelectorAll("path.hl").forEach((edge) => edge.classList.remove("hl"));
    });
  });
  fit();
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".graph").forEach(setUpGraph);
});
