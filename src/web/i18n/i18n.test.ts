import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { it as itDictionary } from './it.js';
import { langFromAcceptLanguage, translator } from './index.js';

describe('the website dictionaries', () => {
  it('have the same keys and the same placeholders in every language', () => {
    const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [name, dictionary] of Object.entries({ fr, de, es, it: itDictionary })) {
      assert.deepEqual(Object.keys(dictionary).sort(), Object.keys(en).sort(), name);
      for (const [key, text] of Object.entries(en)) {
        assert.deepEqual(
          placeholders((dictionary as Record<string, string>)[key]!),
          placeholders(text),
          `${name} ${key}`,
        );
        assert.notEqual((dictionary as Record<string, string>)[key]!.trim(), '', `${name} ${key} is empty`);
      }
    }
  });

  it('fills placeholders and finds computed keys', () => {
    const t = translator('de');
    assert.equal(t('nav.signIn'), de['nav.signIn']);
    assert.equal(t.maybe('errors.no_such_code'), undefined);
    assert.match(t('errors.password_too_short', { min: 8 }), /8/);
  });

  it('writes "1 card" and "2 cards" by each language’s plural rule', () => {
    // The cart said "1 cards" and checkout "1 orders are waiting" (audit of issue 17).
    assert.equal(translator('en')('cart.articles', { count: 1 }), '1 card');
    assert.equal(translator('en')('cart.articles', { count: 2 }), '2 cards');
    assert.equal(translator('fr')('cart.articles', { count: 0 }), '0 carte');
    assert.equal(translator('de')('cart.articles', { count: 1 }), '1 Karte');
    assert.equal(
      translator('en')('flash.checkedOut', { count: 1 }),
      'Bought: 1 order is waiting for your payment.',
    );
    assert.equal(translator('en')('requests.count', { total: 1 }), '1 request');
    assert.equal(translator('de')('nav.unread', { count: 1 }), '1 ungelesene Nachricht');
    assert.equal(translator('fr')('nav.unread', { count: 3 }), '3 messages non lus');
    assert.equal(translator('it')('seller.salesCount', { sales: 1, items: 3 }), '1 vendita, 3 carte vendute');
    assert.equal(translator('es')('seller.salesCount', { sales: 2, items: 1 }), '2 ventas, 1 carta vendida');
  });

  it('picks a language from Accept-Language by weight, English otherwise', () => {
    assert.equal(langFromAcceptLanguage('de-CH,de;q=0.9,en;q=0.8'), 'de');
    assert.equal(langFromAcceptLanguage('ja,fr;q=0.5,it;q=0.7'), 'it');
    assert.equal(langFromAcceptLanguage('ja'), 'en');
    assert.equal(langFromAcceptLanguage(undefined), 'en');
    assert.equal(langFromAcceptLanguage('es;q=0,fr;q=0.1'), 'fr');
  });
});
