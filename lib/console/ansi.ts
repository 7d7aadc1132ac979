/**
 * Terminal escape sequences in build text (npm, jest and friends colour their output and move the
 * cursor): SGR colours become spans with `ansi-*` classes (the page's CSP allows no inline
 * styles, so never a style attribute), every other sequence is dropped, and the text is escaped
 * before any span is added, so a log line cannot become markup. Pure.
 */
/* eslint-disable no-control-regex -- matching the escape character is what this module is for */
import Anser from 'anser';
import ansiRegex from 'ansi-regex';
import { escapeHtml, Html } from './html.js';

const SEQUENCE = ansiRegex();
/** The only sequences kept for Anser: colours and weights, `ESC [ n ; n m`. */
const SGR = /^\u001b\[[\d;]*m$/;
/** An escape character no sequence claimed (a sequence cut in half by a log tail). */
const STRAY = /\u001b(?!\[[\d;]*m)|\u009b/g;

/** The text as a terminal would show it, without colours: for one-line places like the event history. */
export function stripAnsi(text: string): string {
  return text.replace(SEQUENCE, '').replace(/[\u001b\u009b]/g, '');
}

/** The text escaped, its colours as spans: for a log or a Cause shown in a <pre>. */
export function ansiHtml(text: string): Html {
  const coloursOnly = text.replace(SEQUENCE, (sequence) => (SGR.test(sequence) ? sequence : '')).replace(STRAY, '');
  return new Html(Anser.ansiToHtml(escapeHtml(coloursOnly), { use_classes: true }));
}
