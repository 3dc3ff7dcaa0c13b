/** The generic resource routes live in core (`api/resource-routes.ts`); re-exported for compatibility. */
export {
  assertEmptyBody, emptySchema, etagQueryParam, listBody, listParamsOf, listResponseSchema, preconditionOf, resourceRoutes, wrapperParts,
  type ResourceOperations, type ResourceRoutesOptions,
} from '@berth/core';
