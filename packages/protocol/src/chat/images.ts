// An image attached to a prompt: a pointer to a hosted copy, or the bytes inline as base64.
import { type Static, Type } from '@sinclair/typebox';
import { Count } from './fields.js';

/** The most base64 characters an inline image may carry (768 KiB of base64, about 576 KiB of image).
 * Measured on the string as it travels, so a larger image goes by `url` and no frame carries
 * megabytes. */
export const MAX_INLINE_IMAGE_BASE64_CHARS = 768 * 1024;

/** Base64 without a `data:` prefix, within the inline cap. */
const InlineData = Type.String({ maxLength: MAX_INLINE_IMAGE_BASE64_CHARS });

const COMMON = {
  /** The image's id in the server's store, when it was uploaded there. */
  imageId: Type.Optional(Type.String()),
  mimeType: Type.String({ minLength: 1 }),
  /** Pixel size after compression, when known. */
  width: Type.Optional(Count),
  height: Type.Optional(Count),
};

/** An image needs at least one carrier, so the shape is two: inline data (a url may come along), or a
 * url (inline data may come along). Where both are present the url is the one to use. */
export const ImageAttachment = Type.Union(
  [
    Type.Object({ data: InlineData, url: Type.Optional(Type.String({ minLength: 1 })), ...COMMON }),
    Type.Object({ url: Type.String({ minLength: 1 }), data: Type.Optional(InlineData), ...COMMON }),
  ],
  { $id: 'ImageAttachment' },
);
export type ImageAttachment = Static<typeof ImageAttachment>;
