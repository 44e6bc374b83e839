// Short confirmations ("Copied", "Index created") in one polite live region.
let timer = null;

export function toast(text) {
  const region = document.getElementById('toast');
  if (!region) return;
  region.textContent = text;
  region.classList.add('visible');
  clearTimeout(timer);
  timer = setTimeout(() => {
    region.classList.remove('visible');
    region.textContent = '';
  }, 4000);
}
