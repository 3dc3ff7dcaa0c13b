/** Query parsing lives in core (`api/query.ts`); re-exported for compatibility. */
export { parseQuery, queryFlag, queryNumber, queryString } from '@berth/core';
