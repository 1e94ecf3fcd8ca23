import type { AccountType } from '../domain/catalog.js';
import { createUser } from '../domain/users.js';
import type { Services } from '../services.js';
import { updateUser } from '../store/users.js';
import { DEMO_EPOCH } from './catalog-plan.js';
import { Rng } from './prng.js';
import type { Progress } from './progress.js';
import { HANDLES } from './words.js';

/**
 * The demo sellers: shops and collectors from several countries, private sellers, professionals
 * and powersellers, with trading records; a few are on vacation, so their offers are hidden.
 */
export interface SellerPlan {
  username: string;
  country: string;
  accountType: AccountType;
  firstName: string;
  lastName: string;
  company: string | undefined;
  city: string;
  street: string;
  zip: string;
  reputation: number;
  shipsFast: number;
  sellCount: number;
  soldItems: number;
  avgShippingTime: number;
  riskGroup: number;
  onVacation: number;
  registerDate: number;
  /** How much of the demo stock this seller lists, relative to the others. */
  weight: number;
}

const COUNTRIES: readonly (readonly [string, number, string[], string[], string[]])[] = [
  [
    'D',
    30,
    ['Lukas', 'Anna', 'Jonas', 'Lea', 'Felix'],
    ['Schmidt', 'Wagner', 'Becker', 'Hoffmann'],
    ['Berlin', 'Hamburg', 'München', 'Köln', 'Leipzig'],
  ],
  [
    'FR',
    12,
    ['Hugo', 'Chloé', 'Louis', 'Camille'],
    ['Martin', 'Bernard', 'Lefèvre', 'Moreau'],
    ['Paris', 'Lyon', 'Lille', 'Nantes'],
  ],
  [
    'IT',
    10,
    ['Marco', 'Giulia', 'Luca', 'Sara'],
    ['Rossi', 'Bianchi', 'Ferrari', 'Russo'],
    ['Milano', 'Torino', 'Bologna', 'Napoli'],
  ],
  [
    'ES',
    8,
    ['Pablo', 'Lucía', 'Diego', 'Marta'],
    ['García', 'López', 'Martín', 'Sánchez'],
    ['Madrid', 'Valencia', 'Sevilla', 'Bilbao'],
  ],
  [
    'NL',
    6,
    ['Daan', 'Emma', 'Sem', 'Julia'],
    ['de Jong', 'Jansen', 'Visser', 'Bakker'],
    ['Amsterdam', 'Utrecht', 'Eindhoven'],
  ],
  ['AT', 5, ['Tobias', 'Lena', 'Florian'], ['Gruber', 'Huber', 'Bauer'], ['Wien', 'Graz', 'Linz']],
  ['GB', 5, ['Oliver', 'Amelia', 'Harry'], ['Smith', 'Jones', 'Taylor'], ['London', 'Leeds', 'Bristol']],
  ['BE', 4, ['Arthur', 'Louise', 'Noah'], ['Peeters', 'Janssens', 'Maes'], ['Brussel', 'Antwerpen', 'Gent']],
  [
    'PL',
    4,
    ['Jakub', 'Zuzanna', 'Kacper'],
    ['Nowak', 'Kowalski', 'Wiśniewski'],
    ['Warszawa', 'Kraków', 'Wrocław'],
  ],
  ['PT', 3, ['João', 'Beatriz', 'Tiago'], ['Silva', 'Santos', 'Ferreira'], ['Lisboa', 'Porto']],
  ['SE', 3, ['Erik', 'Maja', 'Oskar'], ['Andersson', 'Johansson', 'Karlsson'], ['Stockholm', 'Göteborg']],
  ['CH', 3, ['Luca', 'Mia', 'Noah'], ['Müller', 'Meier', 'Keller'], ['Zürich', 'Bern', 'Basel']],
  ['CZ', 2, ['Jan', 'Tereza'], ['Novák', 'Svoboda'], ['Praha', 'Brno']],
  ['DK', 2, ['William', 'Ida'], ['Nielsen', 'Jensen'], ['København', 'Aarhus']],
  ['IE', 1, ['Conor', 'Aoife'], ['Murphy', 'Kelly'], ['Dublin', 'Cork']],
];

const STREETS: Record<string, string> = {
  D: 'Hauptstraße',
  FR: 'Rue de la République',
  IT: 'Via Roma',
  ES: 'Calle Mayor',
  NL: 'Dorpsstraat',
  AT: 'Hauptplatz',
  GB: 'High Street',
  BE: 'Kerkstraat',
  PL: 'ul. Długa',
  PT: 'Rua Augusta',
  SE: 'Storgatan',
  CH: 'Bahnhofstrasse',
  CZ: 'Hlavní',
  DK: 'Vestergade',
  IE: 'Main Street',
};

/** Generated sellers at a scale: 40 at scale 1, at least 12. */
function sellerCount(scale: number): number {
  return Math.max(12, Math.round(40 * scale));
}

export function planSellers(scale: number): SellerPlan[] {
  const out: SellerPlan[] = [];
  for (let i = 0; i < sellerCount(scale); i++) {
    const rng = new Rng(`seller-${i}`);
    const [country, , firstNames, lastNames, cities] = rng.weighted(COUNTRIES.map((c) => [c, c[1]] as const));
    const accountType = rng.weighted<AccountType>([
      ['private', 65],
      ['professional', 28],
      ['powerseller', 7],
    ]);
    const commercial = accountType !== 'private';
    const sellCount = commercial ? rng.int(300, 40_000) : rng.int(0, 400);
    const handle = HANDLES[i % HANDLES.length]!;
    out.push({
      username: `${handle}-${i + 1}`,
      country,
      accountType,
      firstName: rng.pick(firstNames),
      lastName: rng.pick(lastNames),
      company: commercial ? `${handle[0]!.toUpperCase()}${handle.slice(1)} ${rng.pick(cities)}` : undefined,
      city: rng.pick(cities),
      street: `${STREETS[country] ?? 'Main Street'} ${rng.int(1, 120)}`,
      zip: String(rng.int(1000, 99999)).padStart(5, '0'),
      reputation:
        sellCount < 5
          ? 0
          : rng.weighted([
              [1, 50],
              [2, 30],
              [3, 12],
              [4, 6],
              [5, 2],
            ]),
      shipsFast: rng.weighted([
        [0, 40],
        [1, 35],
        [2, 25],
      ]),
      sellCount,
      soldItems: sellCount * rng.int(1, 4),
      avgShippingTime: rng.int(1, 4),
      riskGroup: rng.weighted([
        [0, 85],
        [1, 12],
        [2, 3],
      ]),
      // A few sellers are away: their offers stay in the database but are not offered.
      onVacation: i % 29 === 7 ? 1 : 0,
      registerDate: DEMO_EPOCH - rng.int(30, 3650) * 86_400_000,
      weight: accountType === 'powerseller' ? 12 : accountType === 'professional' ? 4 : 1,
    });
  }
  return out;
}

/** Creates the sellers that do not exist yet; returns username → idUser for every planned seller. */
export async function seedSellers(
  services: Services,
  sellers: SellerPlan[],
  progress: Progress,
): Promise<Map<string, number>> {
  const db = services.database.db;
  const ids = new Map<string, number>();
  for (let i = 0; i < sellers.length; i += 500) {
    const names = sellers.slice(i, i + 500).map((s) => s.username);
    for (const r of await db
      .selectFrom('users')
      .select(['idUser', 'username'])
      .where('username', 'in', names)
      .execute()) {
      ids.set(r.username, r.idUser);
    }
  }
  for (const s of sellers) {
    if (!ids.has(s.username)) {
      const user = await createUser(services, {
        username: s.username,
        country: s.country,
        accountType: s.accountType,
        firstName: s.firstName,
        lastName: s.lastName,
        company: s.company,
        city: s.city,
        street: s.street,
        zip: s.zip,
        email: `${s.username}@demo.cardbazaar.test`,
      });
      await updateUser(db, user.idUser, {
        reputation: s.reputation,
        shipsFast: s.shipsFast,
        sellCount: s.sellCount,
        soldItems: s.soldItems,
        avgShippingTime: s.avgShippingTime,
        riskGroup: s.riskGroup,
        lossPercentage: s.riskGroup === 0 ? '0 - 2%' : s.riskGroup === 1 ? '2 - 5%' : '5 - 10%',
        onVacation: s.onVacation,
        registerDate: s.registerDate,
      });
      ids.set(s.username, user.idUser);
    }
    progress.advance(1);
  }
  return ids;
}
