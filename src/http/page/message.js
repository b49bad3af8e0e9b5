// The line under the header that says what the last action did, or why the
// server refused it: its code, message and hint, as the CLI prints them.
const line = () => document.getElementById('message');

export function say(text) {
  const m = line();
  m.replaceChildren(document.createTextNode(text));
  m.className = 'ok';
  m.hidden = false;
  delete m.dataset.code;
}

export function sayError(e) {
  const m = line();
  const code = e.code ?? 'ERROR';
  const parts = [document.createElement('strong'), document.createTextNode(` ${e.message}`)];
  parts[0].textContent = code;
  if (e.hint) {
    const hint = document.createElement('span');
    hint.className = 'hint';
    hint.textContent = e.hint;
    parts.push(hint);
  }
  m.replaceChildren(...parts);
  m.className = 'error';
  m.dataset.code = code;
  m.hidden = false;
}
