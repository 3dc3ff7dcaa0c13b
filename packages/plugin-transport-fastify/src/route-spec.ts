/** The route-description types live in core (`@berth/core`, `api/`), where resources declare their HTTP surface; re-exported for compatibility. */
export { listParams, readMaskParam, type HttpMethod, type QueryParamSpec, type QueryValues, type RouteRequest, type RouteSpec } from '@berth/core';
