// Copy buttons (served as a file: the CSP allows no inline script). A button with data-copy-target copies the
// text of the element with that id; the page works without this script (the value is shown, selectable).
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy-target]") : null;
  if (!button) return;
  event.preventDefault();
  const target = document.getElementById(button.getAttribute("data-copy-target") || "");
  if (!target) return;
  const text = target.textContent || "";
  const done = () => {
    const label = button.getAttribute("data-copied-label");
    if (label) button.textContent = label;
  };
  if (navigator.clipboard?.writeText) {
    navigator.clipboard.writeText(text).then(done, () => selectText(target));
  } else {
    selectText(target);
  }
});
function selectText(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  if (selection) {
    selection.removeAllRanges();
    selection.addRange(range);
  }
}
// Buttons are hidden until this script runs (no script: no dead button).
for (const button of document.querySelectorAll("button[data-copy-target][hidden]")) button.hidden = false;
