/** API conformance with kubectl 1.20 (see kubectl-suite.ts); one control center for this file. */
import { kubectlConformance } from './kubectl-suite.js';

kubectlConformance('1.20');
