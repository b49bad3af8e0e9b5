import * as git from 'isomorphic-git';
import type { MemRepo } from './mem-repo.js';

/* A draft's history on memfs, read back with isomorphic-git: commits, trailers, files. */

export interface Entry {
  oid: string;
  tree: string;
  subject: string;
  trailers: Record<string, string>;
}

function trailersOf(message: string): Record<string, string> {
  const paragraphs = message.trimEnd().split('\n\n');
  const out: Record<string, string> = {};
  for (const line of paragraphs[paragraphs.length - 1]!.split('\n')) {
    const m = /^([A-Za-z-]+): (.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

export async function refValue(repo: MemRepo, draft = 'default'): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: `refs/shadow/drafts/${draft}` });
  } catch {
    return undefined;
  }
}

/** The draft's first-parent history, oldest first ([] when the draft does not exist). */
export async function history(repo: MemRepo, draft = 'default'): Promise<Entry[]> {
  let oid = await refValue(repo, draft);
  const out: Entry[] = [];
  while (oid !== undefined) {
    const { commit } = await git.readCommit({ fs: repo.fs, dir: repo.dir, oid });
    out.push({ oid, tree: commit.tree, subject: commit.message.split('\n')[0]!, trailers: trailersOf(commit.message) });
    oid = commit.parent[0];
  }
  return out.reverse();
}

export async function planCommits(repo: MemRepo, draft = 'default'): Promise<Entry[]> {
  return (await history(repo, draft)).filter((e) => e.trailers['Shadow-Plan-Batch'] !== undefined);
}

/** The Shadow-Plan-Batch ids on the draft, oldest first. */
export async function planBatchIds(repo: MemRepo, draft = 'default'): Promise<number[]> {
  return (await planCommits(repo, draft)).map((e) => Number(e.trailers['Shadow-Plan-Batch']));
}

/** Every file of the draft's tree. */
export async function draftFiles(repo: MemRepo, draft = 'default'): Promise<Record<string, string>> {
  const ref = `refs/shadow/drafts/${draft}`;
  const oid = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref });
  const out: Record<string, string> = {};
  for (const filepath of await git.listFiles({ fs: repo.fs, dir: repo.dir, ref })) {
    const { blob } = await git.readBlob({ fs: repo.fs, dir: repo.dir, oid, filepath });
    out[filepath] = Buffer.from(blob).toString('utf8');
  }
  return out;
}
