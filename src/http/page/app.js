// The review page: a plain ES module served as is (no build step, no framework).
// It reads /ui/api/… with the session cookie and sends the session's CSRF token
// on every request that changes state. Text goes in through textContent only.

const statusLine = document.getElementById('status');
const table = document.getElementById('drafts');

/** GET or POST one of the page's JSON endpoints; an error reply throws its message. */
async function api(method, path, csrf) {
  const headers = { accept: 'application/json' };
  if (csrf) headers['x-csrf-token'] = csrf;
  const r = await fetch(path, { method, headers, credentials: 'same-origin' });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error ? `${body.error.message} (${body.error.code})` : `HTTP ${r.status}`);
  return body;
}

function cell(row, text, className) {
  const td = document.createElement('td');
  td.textContent = String(text);
  if (className) td.className = className;
  row.appendChild(td);
}

function showDrafts(drafts) {
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const d of drafts) {
    const row = document.createElement('tr');
    cell(row, d.name);
    cell(row, d.status);
    cell(row, d.batches, 'number');
    cell(row, new Date(d.last_change).toLocaleString());
    cell(row, d.pending_approvals, d.pending_approvals > 0 ? 'number pending' : 'number');
    body.appendChild(row);
  }
  table.hidden = drafts.length === 0;
  statusLine.textContent = drafts.length === 0 ? 'No drafts.' : `${drafts.length} draft${drafts.length === 1 ? '' : 's'}`;
}

function showError(e) {
  statusLine.textContent = e.message;
  statusLine.className = 'error';
}

async function main() {
  const { csrf_token: csrf } = await api('GET', '/ui/api/session');
  document.getElementById('logout').addEventListener('click', () => {
    api('POST', '/ui/api/logout', csrf).then(() => {
      table.hidden = true;
      statusLine.textContent = 'Signed out: open a new URL from shadow serve to come back.';
    }, showError);
  });
  showDrafts((await api('GET', '/ui/api/drafts')).drafts);
}

main().catch(showError);
