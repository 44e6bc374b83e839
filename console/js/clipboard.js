import { toast } from './toast.js';

/**
 * Copies text. The Clipboard API needs a secure context (https or localhost); on plain http the
 * old selection-based copy still works.
 */
export async function copyText(text, what) {
  try {
    if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(text);
    else legacyCopy(text);
    toast(`${what} copied to the clipboard`);
  } catch {
    toast(`Could not copy the ${what.toLowerCase()}; select it and copy by hand`);
  }
}

function legacyCopy(text) {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}
