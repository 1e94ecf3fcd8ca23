import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldName, foldWords, prefixUpperBound } from './search-text.js';

describe('search text folding', () => {
  it('lower-cases, strips accents and apostrophes, splits on everything else', () => {
    assert.deepEqual(foldWords("Urza's Tower"), ['urzas', 'tower']);
    assert.deepEqual(foldWords('Jace, the Mind-Sculptor'), ['jace', 'the', 'mind', 'sculptor']);
    assert.deepEqual(foldWords('Arpía impía'), ['arpia', 'impia']);
    assert.deepEqual(foldWords('Würgerharpyie'), ['wurgerharpyie']);
    assert.deepEqual(foldWords('Große Straße'), ['grosse', 'strasse']);
    assert.deepEqual(foldWords('Pokémon (Holo) #25'), ['pokemon', 'holo', '25']);
    assert.deepEqual(foldWords('  '), []);
  });

  it('folds a whole name to single-space separated words', () => {
    assert.equal(foldName('  Harpie   grièche '), 'harpie grieche');
    assert.equal(foldName('ÉLAN VITAL'), foldName('élan vital'));
  });

  it('gives the upper bound of a prefix range', () => {
    assert.equal(prefixUpperBound('drag'), 'drah');
    assert.equal(prefixUpperBound('a9'), 'a:');
    assert.ok('dragon' < prefixUpperBound('drag') && 'dragzzz' < prefixUpperBound('drag'));
    assert.ok('drah' >= prefixUpperBound('drag'));
  });
});
