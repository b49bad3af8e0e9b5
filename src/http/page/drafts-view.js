// The first view: every draft with its status, actors, batches, last change
// and pending approvals; a draft's name opens it.
import { get } from './api.js';
import { el, plural, when } from './dom.js';

export async function showDrafts(view) {
  const { drafts } = await get('/ui/api/drafts');
  const rows = drafts.map((d) =>
    el(
      'tr',
      { dataset: { draft: d.name } },
      el('td', {}, el('a', { href: `#/drafts/${encodeURIComponent(d.name)}` }, d.name)),
      el('td', {}, el('span', { className: `badge ${d.status}` }, d.status)),
      el('td', {}, d.actors.join(', ')),
      el('td', { className: 'number batches' }, d.batches),
      el('td', {}, when(d.last_change)),
      el('td', { className: d.pending_approvals > 0 ? 'number pending' : 'number' }, d.pending_approvals),
    ),
  );
  view.replaceChildren(
    el('h2', {}, 'Drafts'),
    el('p', { className: 'summary' }, drafts.length === 0 ? 'No drafts yet: an agent\'s first batch opens one.' : plural(drafts.length, 'draft')),
    drafts.length === 0
      ? null
      : el(
          'table',
          { id: 'drafts' },
          el('thead', {}, el('tr', {}, ...['Draft', 'Status', 'Actors', 'Batches', 'Last change', 'Pending approvals'].map((h) => el('th', {}, h)))),
          el('tbody', {}, rows),
        ),
  );
}
