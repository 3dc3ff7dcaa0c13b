export { gpuyAcceleratorTypes, gpuyLaunchProfile } from './catalogue.js';
export { createGpuyRuntime, gpuyRuntime, type GpuyRuntimeOptions } from './gpuy-runtime.js';
export { clientNodeKubernetesApi } from '@berth/runtime-kit';
