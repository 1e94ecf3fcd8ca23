/** The marketplace's games with their real ids (reference §2.4), for games an import introduces. */
const KNOWN_GAMES: Record<number, [string, string]> = {
  1: ['Magic the Gathering', 'MtG'],
  2: ['World of Warcraft TCG', 'WoW'],
  3: ['Yu-Gi-Oh!', 'YGO'],
  5: ['The Spoils', 'TS'],
  6: ['Pokémon', 'PKM'],
  7: ['Force of Will', 'FoW'],
  8: ['Cardfight!! Vanguard', 'CFV'],
  9: ['Final Fantasy', 'FF'],
  10: ['Weiß Schwarz', 'WS'],
  11: ['Dragoborne', 'DB'],
  12: ['My Little Pony', 'MLP'],
  13: ['Dragon Ball Super', 'DBS'],
  15: ['Star Wars: Destiny', 'SWD'],
  16: ['Flesh and Blood', 'FaB'],
  17: ['Digimon', 'DCG'],
  18: ['One Piece', 'OP'],
  19: ['Lorcana', 'LOR'],
  20: ['Battle Spirits Saga', 'BSS'],
  21: ['Star Wars Unlimited', 'SWU'],
  22: ['Riftbound', 'RB'],
  23: ['Cyberpunk', 'CP'],
  24: ['Gundam', 'GCG'],
};

export function gameNamed(idGame: number): [string, string] {
  return KNOWN_GAMES[idGame] ?? [`Game ${idGame}`, `G${idGame}`];
}
