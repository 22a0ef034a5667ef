import { describe, expect, it } from 'vitest';
import { htmlToText } from './html-to-text.js';
import { bodyKind, decodeText, parseContentType } from './response-body.js';

describe('htmlToText', () => {
  it('keeps text and turns blocks into lines', () => {
    expect(
      htmlToText('<div>a</div><div>b<br>c</div><p>d <i>e</i></p><table><tr><td>1</td><td>2</td></tr></table>'),
    ).toBe('a\nb\nc\n\nd e\n\n1 2');
  });

  it('drops scripts, styles, comments and other non-content, whatever their case', () => {
    const html =
      '<SCRIPT type="x">var a = "</p>";</SCRIPT ><style>p{}</style><!-- <p>hidden</p> --><noscript>js off</noscript><svg><text>logo</text></svg><p>shown</p>';
    expect(htmlToText(html)).toBe('shown');
  });

  it('decodes entities into plain text, not markup', () => {
    expect(
      htmlToText(
        '<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#169; &#x1F600; &eacute;&nbsp;x &constructor; &#0;</p>',
      ),
    ).toBe('<script>alert(1)</script> & © 😀 &eacute; x &constructor; \uFFFD');
  });

  it('handles quoted ">" in attributes and stray "<"', () => {
    expect(htmlToText('<a title="a > b" href=\'x>y\'>link</a> 1 < 2')).toBe('link 1 < 2');
  });

  it('drops the rest of an unterminated tag, comment or script', () => {
    expect(htmlToText('before<script>never closed')).toBe('before');
    expect(htmlToText('before<!-- never closed')).toBe('before');
    expect(htmlToText('before<a href="x')).toBe('before');
  });

  it('stays linear on hostile input', () => {
    // Each of these would be quadratic for a naive lazy regex; here they finish in milliseconds.
    for (const unit of ['<!--', '<script>', '<a title="', '<', '&#'])
      expect(typeof htmlToText(unit.repeat(100_000))).toBe('string');
  });
});

describe('response bodies', () => {
  it('classifies content types', () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({
      mediaType: 'text/html',
      charset: 'ISO-8859-1',
    });
    expect(parseContentType(null)).toEqual({ mediaType: '', charset: undefined });
    expect(['text/html', 'application/xhtml+xml'].map(bodyKind)).toEqual(['html', 'html']);
    expect(
      ['text/csv', 'application/json', 'application/ld+json', 'application/xml', 'application/rss+xml'].map(bodyKind),
    ).toEqual(Array(5).fill('text'));
    expect(['image/png', 'application/pdf', 'application/octet-stream', ''].map(bodyKind)).toEqual(
      Array(4).fill(undefined),
    );
  });

  it('decodes with the charset, falls back to UTF-8, and drops a character cut in half', () => {
    expect(decodeText(Buffer.from([0xe9]), 'latin1', false)).toBe('é');
    expect(decodeText(Buffer.from('é'), 'no-such-charset', false)).toBe('é');
    expect(decodeText(Buffer.from('aé').subarray(0, 2), 'utf-8', true)).toBe('a');
  });
});
