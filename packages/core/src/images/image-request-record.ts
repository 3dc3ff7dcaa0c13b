import type { JsonObject } from '../contracts/json.js';
import type { ImageFormat } from '../ports/image-engine.js';
import type { ImageModelRole } from './image-models.js';

/** Statuses of an asynchronous image request (api-facts.md), besides `Task not found` for an unknown id. */
export type ImageRequestStatus = 'Pending' | 'Ready' | 'Error' | 'Request Moderated' | 'Content Moderated';
export const taskNotFound = 'Task not found';

/** The collection asynchronous image requests are stored under: `accounts/{account}/imageRequests/{id}`. */
export const imageRequestsCollection = 'imageRequests';

/**
 * One asynchronous request as stored (a resource body in the resource store, never served by the
 * control plane). Absent values are null so the record is plain JSON.
 */
export type ImageRequestRecord = {
  readonly id: string;
  readonly accountId: string;
  readonly model: string;
  readonly role: ImageModelRole;
  readonly status: ImageRequestStatus;
  readonly prompt: string;
  readonly seed: number;
  readonly width: number;
  readonly height: number;
  readonly outputFormat: ImageFormat;
  readonly safetyTolerance: number;
  readonly promptUpsampling: boolean;
  /** Blob key of the input image (kept until the request ends). */
  readonly inputImageKey: string | null;
  readonly webhookUrl: string | null;
  readonly webhookSecret: string | null;
  /** The gateway's origin as the submitting client saw it: `result.sample` is a URL on it. */
  readonly origin: string;
  readonly createTime: string;
  readonly startTime: string | null;
  readonly endTime: string | null;
  /** 0 while queued, 1 once finished. */
  readonly progress: number;
  /** Error message or moderation reasons, shown as `details`. */
  readonly details: JsonObject | null;
  /** Blob key of the result image (status Ready). */
  readonly sampleKey: string | null;
};

export function imageRequestName(accountId: string, id: string): string {
  return `accounts/${accountId}/${imageRequestsCollection}/${id}`;
}

/** A stored body read back as a record: the store only ever holds what {@link ImageRequestRecord} allows. */
export function imageRequestOf(data: JsonObject): ImageRequestRecord {
  return data as ImageRequestRecord;
}
