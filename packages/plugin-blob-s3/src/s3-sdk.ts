import type * as ClientS3 from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';

/** The parts of the AWS SDK v3 the store uses: the S3 client and commands, and the multipart `Upload`. */
export interface S3Sdk {
  readonly s3: typeof ClientS3;
  readonly storage: typeof LibStorage;
}

let loading: Promise<S3Sdk> | undefined;

/**
 * The AWS SDK, imported on first use rather than with this package: loading it takes about 200 ms, which
 * every gateway that installs the package but keeps its blobs elsewhere would otherwise pay at start-up
 * (BENCHMARKS.md, startup).
 */
export function loadS3Sdk(): Promise<S3Sdk> {
  loading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({ s3, storage }));
  return loading;
}
