// Live updates: the server's event stream of every draft's ledger
// (/ui/api/live). Events ask the current view to refresh, once for all that
// arrive within 50 ms, handing it the newest event seen of each draft; the stream says `ready` when it is
// watching, and the view reads its state then (first, and after a reconnect);
// a stream that fails before that still gets the view drawn once.
export function listen(onChange) {
  const badge = document.getElementById('live');
  const source = new EventSource('/ui/api/live');
  /** The newest ledger event seen of each draft. */
  const seen = {};
  let queued = false;
  let drawn = false;
  const soon = () => {
    // The first draw goes at once; later ones gather what arrives within 50 ms.
    const delay = drawn ? 50 : 0;
    drawn = true;
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      onChange({ ...seen });
    }, delay);
  };
  source.addEventListener('ready', (e) => {
    for (const [draft, seq] of Object.entries(JSON.parse(e.data).seen)) seen[draft] = Math.max(seen[draft] ?? 0, seq);
    badge.textContent = '● live';
    badge.className = 'live on';
    soon();
  });
  source.addEventListener('ledger', (e) => {
    const { draft, seq } = JSON.parse(e.data);
    seen[draft] = Math.max(seen[draft] ?? 0, seq);
    soon();
  });
  source.addEventListener('drafts', () => soon());
  source.addEventListener('error', () => {
    badge.textContent = '○ reconnecting';
    badge.className = 'live';
    if (!drawn) soon();
  });
  return source;
}
