export { gpuxAcceleratorTypes, gpuxLaunchProfile } from './catalogue.js';
export { createGpuxRuntime, gpuxRuntime, type GpuxRuntimeOptions } from './gpux-runtime.js';
export { clientNodeKubernetesApi } from '@berth/runtime-kit';
