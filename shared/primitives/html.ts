/** Escapes text for HTML element content and quoted attribute values (numeric references, so no entity table is needed). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
