// Building the page's DOM: elements and text nodes only, never HTML strings
// (nothing a draft holds can become markup), so the strict CSP holds too.

/** An element: `attrs` sets properties (`className`, `hidden`, `dataset: {…}`, `onclick`), the rest are children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node[k] = v;
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** `n thing(s)`. */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : /(s|sh|ch|x)$/.test(word) ? 'es' : 's'}`;
}

/** A time as the reader's locale writes it. */
export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '';
}
