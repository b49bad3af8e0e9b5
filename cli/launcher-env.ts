/**
 * `NODE_EXTRA_CA_CERTS` makes node parse every certificate in the file
 * before it runs a line of JavaScript: with a system bundle that is about 45
 * ms on every start, twice what node takes without it. shadow makes no TLS
 * connection of its own (remotes are git's business), so the `shadow`
 * launcher (cli/launcher.sh) starts node without it and keeps its value in
 * `SHADOW_NODE_EXTRA_CA_CERTS`; this puts it back in the environment before
 * anything runs, so every process shadow starts (git, hooks, filters, the
 * commands of `shadow exec`) gets it as the caller set it.
 */
export const SAVED_CA_CERTS = 'SHADOW_NODE_EXTRA_CA_CERTS';

export function restoreCaCerts(env: NodeJS.ProcessEnv): void {
  const saved = env[SAVED_CA_CERTS];
  if (saved === undefined) return;
  delete env[SAVED_CA_CERTS];
  if (env.NODE_EXTRA_CA_CERTS === undefined) env.NODE_EXTRA_CA_CERTS = saved;
}
