// The review page: a plain ES module bundled by esbuild with diff2html and
// highlight.js (cli/bundle.mjs), served from the package (no CDN). Routes in
// the URL's fragment: `#/` the drafts, `#/drafts/<name>` one draft. Text goes
// into the DOM as text only (dom.js).
import { post, startSession } from './api.js';
import { showDrafts } from './drafts-view.js';
import { showDraft } from './draft-view.js';
import { listen } from './live.js';
import { say, sayError } from './message.js';

const view = document.getElementById('view');
let source;

function route() {
  const m = /^#\/drafts\/(.+)$/.exec(location.hash);
  return m ? { draft: decodeURIComponent(m[1]) } : { draft: null };
}

let running = Promise.resolve();
let waiting = 0;
/** Draw the current view; draws never overlap (a refresh waits for the one before it). body[data-busy] while any is due. */
function render() {
  waiting++;
  document.body.dataset.busy = '1';
  running = running.then(async () => {
    const { draft } = route();
    try {
      if (draft === null) await showDrafts(view);
      else await showDraft(view, draft, render);
      document.body.dataset.rendered = String(Number(document.body.dataset.rendered ?? 0) + 1);
      // When each view was whole on screen (bench/page.bench.ts reads the first).
      performance.mark('shadow:drawn');
    } catch (e) {
      sayError(e);
    }
    if (--waiting === 0) delete document.body.dataset.busy;
  });
  return running;
}

async function main() {
  // A move to another view is drawn from the start: one made while the session's token is still read
  // (a slow answer on a loaded machine) would otherwise find no listener, and the view stay as it was.
  window.addEventListener('hashchange', () => {
    document.getElementById('message').hidden = true;
    render();
  });
  // The stream opens while the session's token is read: the first draw waits for neither longer than it must.
  const session = startSession();
  // The first draw waits for the stream's `ready` (the ledgers' places taken), so no batch falls between the
  // state drawn and the events that follow; a page whose stream fails draws anyway, without live updates.
  // body[data-seen] says which ledger events the view on screen includes, once it is drawn (tests wait on it).
  source = listen((seen) => render().then(() => (document.body.dataset.seen = JSON.stringify(seen))));
  await session;
  document.getElementById('logout').addEventListener('click', () => {
    post('/ui/api/logout').then(() => {
      source?.close();
      view.replaceChildren();
      say('Signed out: open a new URL from shadow serve to come back.');
    }, sayError);
  });
}

main().catch(sayError);
