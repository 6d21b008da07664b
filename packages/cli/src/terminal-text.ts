// Recorded output holds the escape sequences its programs wrote for a terminal (colours, titles,
// cursor moves). Printed as they are, they would act on the reader's own terminal: recolour it,
// retitle it, move the cursor over earlier lines. They are removed, as the web UI removes them.

// CSI (ESC [ … final byte, or its one-byte C1 form), OSC (ESC ] … ended by BEL or ESC \), and the
// two-character escapes (ESC and one byte).
const ESCAPES =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[ -/]*[0-~]/g;

// What is left of the control characters after the escapes: C0 but tab and line feed, DEL, C1.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with terminal escape sequences removed and other control characters (but tab and line
 * feed) dropped. */
export function withoutEscapes(text: string): string {
  return text.replace(ESCAPES, '').replace(CONTROLS, '');
}
