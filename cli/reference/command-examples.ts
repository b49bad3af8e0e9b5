/**
 * Each command's examples, as the reference (docs/cli.md) and `shadow help <command>`
 * show them: shell lines, each with what it does after `#`. Keyed by the
 * command's words (`draft new`); a test holds the keys to the command table.
 */
export const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  batch: ['shadow batch batch.json                # or - for stdin'],
  write: [
    'shadow write notes/todo.md < todo.md   # one batch, stdin byte for byte; --mode 100755',
    'base64 logo.png | shadow write logo.png --base64   # stdin is base64 text',
  ],
  edit: ["shadow edit README.md --old 'Hello' --new 'Hello, world'"],
  rm: ['shadow rm old.txt build.log'],
  mv: ['shadow mv src/a.ts src/b.ts'],
  'apply-patch': [
    "shadow apply-patch fix.patch           # a patch in Codex's apply_patch format (or - for stdin), one batch",
  ],
  cat: ["shadow cat src/hello.ts                # the view's bytes (--json: utf8 text or base64)"],
  ls: ['shadow ls src                          # * marks entries that come from the draft; no dir: the current one'],
  log: ['shadow log -n 5                        # batches, newest first, with their ops'],
  diff: [
    "shadow diff                            # unified diff against the captured bases (coloured and paged on a terminal, as git's)",
    'shadow diff --stat                     # or --numstat, --shortstat, --name-only, --name-status; --stat=<width>',
    'shadow diff before-refactor..          # between two points: checkpoint, batch number, ~N, commit (or two: A B)',
    'shadow diff -- src/api.ts docs/        # only these paths: relative to the current directory, globs, :(literal)',
    'shadow diff -M                         # renames paired as git diff -M pairs them; -M90% (or -M9) asks more alike',
    'shadow diff -M --name-status 2..       # R087<TAB>src/old.ts<TAB>lib/new.ts, as git prints a rename',
  ],
  status: [
    'shadow status                          # tip, batches, changes, conflicts, paths the working tree moved away from, and whether HEAD moved',
    'shadow status                          # paths left in conflict, path by path',
  ],
  blame: [
    'shadow blame src/api.ts                # each line: the batch, actor (person or AI), model and time that wrote it; kept lines: their commit',
    'shadow blame src/api.ts --porcelain    # git blame --porcelain of the draft, byte for byte (--at <point> for an earlier one)',
    'shadow blame --published src/api.ts [<commit>]  # of a commit of the branch, the draft gone: from the Agent Trace notes',
  ],
  trace: [
    'shadow trace [<commit>]                # the Agent Trace record noted on a commit (JSON); git log --notes=agent-trace shows it too',
  ],
  'draft new': [
    'shadow draft new refactor --from main  # from a commit-ish (default HEAD); O(1)',
    'shadow draft new again --from refs/shadow/archive/refactor/20261122T101500Z/tip   # bring it back',
    "shadow draft new fork --from 1a2b3c4d   # a commit of another draft continues its line, if it is one of that draft's own points here (else INVALID_TARGET)",
    'shadow draft new refactor --from origin/refactor   # continue it here: tip, root, bases, checkpoints, proposal and ledger',
  ],
  'draft list': [
    'shadow draft list',
    'shadow draft list --remote             # origin/refactor, with tip, batches, status',
  ],
  'draft show': ['shadow draft show refactor'],
  'draft drop': [
    'shadow draft drop refactor             # kept at refs/shadow/archive/refactor/<time>/ (tip and checkpoints)',
    'shadow draft drop refactor --purge     # gone for good (objects stay until git gc)',
  ],
  checkpoint: ['shadow checkpoint before-refactor -m "tests green"'],
  checkpoints: ['shadow checkpoints'],
  rollback: [
    'shadow rollback before-refactor        # a checkpoint',
    'shadow rollback 3                      # a batch number',
    'shadow rollback ~2                     # two batches back (each with its capture)',
    'shadow rollback 1a2b3c4d               # a commit of the draft (its history, reflog or checkpoints: docs/security/targets.md)',
  ],
  undo: [
    'shadow undo                            # reverse the last move: a batch, a rollback, a rebase, or an undo (so undo twice redoes)',
    'shadow undo                            # the rebase is a ref move like any other',
  ],
  apply: [
    'shadow apply --dry-run                 # the paths it would write, each clean, merged or conflict (with the hunks); writes nothing (but its review cache)',
    'shadow apply                           # write them into the working tree, merged with your own changes',
    "shadow apply --conflict=markers        # where you and the draft changed the same lines, write both with git's conflict markers",
    'shadow apply src/api.ts docs/          # publish only these paths (files, directories, globs, relative to here); the draft keeps the rest',
    "shadow apply --commit                  # also move the current branch to the draft's commits",
    'shadow apply --squash -m "add greeting"   # or make one commit of the published paths',
    'shadow apply                           # exit 3 while approvals are pending, listing their ids',
    'shadow apply --expect review:3f2a…      # only the state `shadow review` showed (its review fingerprint): else STALE_REVIEW, nothing written (approve/deny take --expect too; docs/security/targets.md)',
  ],
  unapply: [
    'shadow unapply                         # undo the last apply (and the branch move, after --commit), keeping your later edits',
    'shadow unapply --dry-run               # per path: clean, merged with your later edits, or conflict',
  ],
  recover: [
    'shadow recover                         # finish an apply a crash interrupted (every command does it first)',
  ],
  rebase: [
    'shadow rebase                          # move the draft onto the working tree as it is now',
    'shadow rebase --onto main              # or onto a commit: after you pulled, switched branch or committed',
  ],
  resolve: [
    'shadow resolve src/api.ts              # keep a conflicted path as the draft holds it (a batch on it resolves it too)',
  ],
  split: [
    'shadow split --hunks src/api.ts:2,3 --hunks README.md --into docs-part   # those hunks move to a new draft; this one keeps the rest',
    'shadow split --hunks 3f9c0a1b2c4d     # a hunk by the id shadow diff --json prints (the new draft: <draft>-split)',
  ],
  revert: [
    'shadow revert 3                        # a new batch that undoes batch 3 alone, later batches kept (as git revert)',
    'shadow revert 3 --apply                # the same, then its paths applied to the working tree (your later edits kept)',
  ],
  propose: [
    'shadow propose -m "refactor parser"    # freeze the draft\'s diff as a proposal (writes nothing to your files)',
  ],
  review: [
    'shadow review                          # the diff, the findings, the approvals apply needs, and how apply_patch placed changes worth a look (--stat: file list)',
    'shadow review origin/refactor          # the same diff, findings and approvals as at the source (also diff, log, cat, events --draft origin/refactor)',
  ],
  approve: ['shadow approve ap-1a2b3c4d5e --reason "test fixture"'],
  deny: ['shadow deny ap-1a2b3c4d5e --reason "no keys in the repository"   # apply then fails fast with DENIED'],
  events: ["shadow events                          # the draft's ledger; --json: one event a line; --follow; --verify"],
  run: [
    'shadow run plan.json                   # batches 1..n, each one batch commit; a progress bar on a terminal',
    'shadow run plan.json --from 12         # an explicit restart point (batches on the draft are not applied again)',
  ],
  stop: ['shadow stop                            # the same, from another process (or POST /api/drafts/<draft>/stop)'],
  resume: [
    'shadow resume                          # continues at batch 8 of the same plan file',
    'shadow resume --skip                   # after a failed batch: skip it (recorded) and go on',
    'shadow resume --force                  # run the plan file as it is now, though it changed since the run began',
  ],
  'session begin': [
    'id=$(shadow session begin --target docs/guide.md --op create --intent "user guide" --json | jq -r .session_id)',
  ],
  'session feed': [
    'generate-docs | shadow session feed "$id"     # plain text; a line "DONE" (or the end of input) ends it',
  ],
  'session status': ['shadow session status "$id"                   # stage, bytes, lines, last save, age'],
  'session list': ['shadow session list                           # active and orphaned sessions'],
  'session cancel': ['shadow session cancel "$id"                   # drop it and its files'],
  'session recover': [
    'shadow session recover                        # after a crash: list them; --finalize or --discard them',
  ],
  'session finalize': ['shadow session finalize "$id"                 # commit a session whose content is all there'],
  'session clean': [
    'shadow session clean                          # remove expired, failed and old orphaned sessions now',
  ],
  serve: [
    'shadow serve                           # 127.0.0.1, a free port; {port, token, url, pid, host} in .git/shadow/server.json (0600)',
    'shadow serve --allow-apply             # also apply drafts into the working tree (by default only dry runs)',
    "shadow serve --open                    # also open the review page's one-time URL in a browser",
  ],
  page: [
    'shadow page --open                     # while it runs: a new one-time URL of the review page (SERVER_NOT_RUNNING without a server)',
  ],
  push: [
    'shadow push origin refactor            # the draft, its checkpoints, proposal, metadata and ledger, in one atomic git push',
    'shadow push                            # the current draft (--draft, $SHADOW_DRAFT, default) to origin; --all: every draft',
    'shadow push origin refactor            # later: after more batches, leased against what the last fetch or push saw',
  ],
  fetch: [
    'shadow fetch origin                    # every draft of origin, here as origin/<name>; local drafts untouched',
  ],
  pull: [
    'shadow pull origin refactor            # fetch, fast-forward refactor to origin/refactor, join its ledger (denies made there count here; approvals when signed)',
    'shadow pull                            # every local draft origin has too',
  ],
  'worktree add': [
    "shadow worktree add ../app-draft       # the draft's view as a real directory (new or empty)",
    "shadow worktree add ../app-draft --git # or a git worktree at the draft's tip, node_modules linked in: cd there && npm test; git works",
  ],
  'worktree sync': [
    "shadow worktree sync ../app-draft      # bring it to the draft's tip (after other writers, rollback, undo)",
  ],
  'worktree record': ['shadow worktree record ../app-draft    # what changed there, as one batch'],
  watch: ['shadow watch ../app-draft              # every settled burst of changes becomes one batch (--quiet-ms 300)'],
  exec: [
    "shadow exec -- npm test                # run a command in the draft's kept git worktree; its exit status passes through",
    'shadow exec --record -- npx prettier -w src   # and record what it changed as one batch',
  ],
  'worktree list': ['shadow worktree list'],
  'worktree remove': [
    'shadow worktree remove ../app-draft    # refused while it holds changes not recorded (--force discards them)',
  ],
  init: [
    'shadow init claude                     # Claude Code: .mcp.json, and a PreToolUse hook in .claude/settings.json',
    "shadow init codex                      # Codex CLI: [mcp_servers.shadow] in .codex/config.toml (a trusted project's)",
    'shadow init gemini                     # Gemini CLI: .gemini/settings.json, server and BeforeTool hook',
    'shadow init cursor                     # Cursor: .cursor/mcp.json',
    'shadow init claude --print             # what it would write, in full; writes nothing',
    'shadow init claude --remove            # the files back as they were, byte for byte',
  ],
  mcp: [
    'shadow mcp                             # an MCP server over stdio, rooted at the repository',
    'shadow mcp --draft-per-actor           # each client (actor) writes to a draft of its own: agent-<actor>',
    'shadow mcp --draft refactor --actor reviewer-bot',
    'shadow mcp --tools anthropic,filesystem # the tool shapes models and clients already know (or all)',
  ],
  tools: ['shadow tools --format openai           # function definitions for an agent runtime (or anthropic, mcp)'],
};
