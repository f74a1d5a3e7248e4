/**
 * hcc's own version and the Kubernetes API level it follows, in a module of their own so the CLI
 * can print `hcc --version` without loading the API server (`@hcc/control-center/version`).
 */

/** The Kubernetes version hcc reports at `/version` (the API level it follows). */
export const KubernetesVersion = { major: '1', minor: '34', gitVersion: 'v1.34.0' };

/** hcc's own version (`hcc --version`, and `+hcc.X` in `/version`'s gitVersion). */
export const HccVersion = '0.1.0';
