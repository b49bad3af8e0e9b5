// One draft: who worked on it and its state, the decisions apply needs, the
// files to apply, the diff and the timeline. Refreshed in place when the
// draft's ledger moves (live.js), keeping what the reader chose.
import { get, draftPath } from './api.js';
import { el, plural, when } from './dom.js';
import { decisionsSection } from './decisions-view.js';
import { actionsSection } from './actions-view.js';
import { diffDrawn, diffSection, prefetchDiff } from './diff-view.js';
import { timelineSection } from './timeline-view.js';
import { showTicks } from './ticks.js';

export async function showDraft(view, draft, refresh) {
  // The diff is asked for beside the draft's state, not after it.
  prefetchDiff(draft);
  const [detail, timeline] = await Promise.all([get(draftPath(draft)), get(`${draftPath(draft)}/timeline`)]);
  const d = detail.draft;
  const actors = [...new Set(detail.batches.map((b) => (b.model ? `${b.actor} (${b.model})` : b.actor)))];
  const pending = (detail.review.approvals ?? []).filter((a) => a.status === 'pending').length;
  const scroll = window.scrollY;
  view.replaceChildren(
    el('p', { className: 'crumbs' }, el('a', { href: '#/' }, '← Drafts')),
    el('h2', { id: 'draft-name' }, d.name, ' ', el('span', { className: `badge ${detail.review.status}`, id: 'draft-status' }, detail.review.status)),
    el(
      'p',
      { className: 'summary', id: 'draft-summary' },
      `${plural(detail.batches.length, 'batch')} by ${actors.join(', ') || 'nobody yet'}; ${plural(detail.checkpoints.length, 'checkpoint')}; `,
      `last change ${when(detail.batches[0]?.time ?? d.created_at)}; `,
      el('span', { className: pending > 0 ? 'pending' : '' }, `${plural(pending, 'approval')} pending`),
    ),
    decisionsSection(draft, detail.review, refresh),
    actionsSection(draft, detail, refresh),
    diffSection(draft, detail),
    timelineSection(timeline.events),
  );
  // The diff is kept across refreshes: its hunk boxes follow the files ticked now.
  showTicks(draft);
  window.scrollTo(0, scroll);
  await diffDrawn();
}
