/**
 * The living market page's texts (`/market`, sandbox), one object per display language, spread
 * into each dictionary.
 */

export const marketEn = {
  'market.title': 'The living market',
  'market.intro':
    'Simulated traders listing, repricing, buying, paying, shipping and cancelling in this sandbox. Start one with `cardbazaar market run --scenario calm` or `cardbazaar serve --market calm`.',
  'market.none': 'No market has run on this database yet.',
  'market.run': 'Scenario {scenario}, seed {seed}: {status}, day {day} of {days}.',
  'market.status.running': 'running',
  'market.status.paused': 'paused',
  'market.status.stopped': 'stopped',
  'market.status.finished': 'finished',
  'market.traders': 'Traders',
  'market.kind': 'Kind',
  'market.count': 'How many',
  'market.values': 'Fair value and price guide',
  'market.product': 'Product',
  'market.fair': 'Fair value',
  'market.actions': 'Last actions',
  'market.time': 'Time',
  'market.trader': 'Trader',
  'market.action': 'Action',
  'market.reason': 'Reason',
  'market.outcome': 'Outcome',
};

export const marketFr: Record<keyof typeof marketEn, string> = {
  'market.title': 'Le marché vivant',
  'market.intro':
    'Des commerçants simulés qui mettent en vente, changent leurs prix, achètent, paient, expédient et annulent dans ce bac à sable. Lancez-en un avec `cardbazaar market run --scenario calm` ou `cardbazaar serve --market calm`.',
  'market.none': 'Aucun marché n’a encore tourné sur cette base.',
  'market.run': 'Scénario {scenario}, graine {seed} : {status}, jour {day} sur {days}.',
  'market.status.running': 'en cours',
  'market.status.paused': 'en pause',
  'market.status.stopped': 'arrêté',
  'market.status.finished': 'terminé',
  'market.traders': 'Commerçants',
  'market.kind': 'Type',
  'market.count': 'Nombre',
  'market.values': 'Valeur réelle et guide des prix',
  'market.product': 'Produit',
  'market.fair': 'Valeur réelle',
  'market.actions': 'Dernières actions',
  'market.time': 'Heure',
  'market.trader': 'Commerçant',
  'market.action': 'Action',
  'market.reason': 'Raison',
  'market.outcome': 'Résultat',
};

export const marketDe: Record<keyof typeof marketEn, string> = {
  'market.title': 'Der lebendige Markt',
  'market.intro':
    'Simulierte Händler, die in dieser Sandbox einstellen, Preise ändern, kaufen, bezahlen, versenden und stornieren. Starten Sie einen mit `cardbazaar market run --scenario calm` oder `cardbazaar serve --market calm`.',
  'market.none': 'Auf dieser Datenbank lief noch kein Markt.',
  'market.run': 'Szenario {scenario}, Seed {seed}: {status}, Tag {day} von {days}.',
  'market.status.running': 'läuft',
  'market.status.paused': 'pausiert',
  'market.status.stopped': 'angehalten',
  'market.status.finished': 'beendet',
  'market.traders': 'Händler',
  'market.kind': 'Art',
  'market.count': 'Anzahl',
  'market.values': 'Wahrer Wert und Preisführer',
  'market.product': 'Produkt',
  'market.fair': 'Wahrer Wert',
  'market.actions': 'Letzte Aktionen',
  'market.time': 'Zeit',
  'market.trader': 'Händler',
  'market.action': 'Aktion',
  'market.reason': 'Grund',
  'market.outcome': 'Ergebnis',
};

export const marketEs: Record<keyof typeof marketEn, string> = {
  'market.title': 'El mercado vivo',
  'market.intro':
    'Comerciantes simulados que ponen a la venta, cambian precios, compran, pagan, envían y cancelan en este entorno de pruebas. Inicia uno con `cardbazaar market run --scenario calm` o `cardbazaar serve --market calm`.',
  'market.none': 'Todavía no ha funcionado ningún mercado en esta base de datos.',
  'market.run': 'Escenario {scenario}, semilla {seed}: {status}, día {day} de {days}.',
  'market.status.running': 'en marcha',
  'market.status.paused': 'en pausa',
  'market.status.stopped': 'detenido',
  'market.status.finished': 'terminado',
  'market.traders': 'Comerciantes',
  'market.kind': 'Tipo',
  'market.count': 'Cuántos',
  'market.values': 'Valor real y guía de precios',
  'market.product': 'Producto',
  'market.fair': 'Valor real',
  'market.actions': 'Últimas acciones',
  'market.time': 'Hora',
  'market.trader': 'Comerciante',
  'market.action': 'Acción',
  'market.reason': 'Motivo',
  'market.outcome': 'Resultado',
};

export const marketIt: Record<keyof typeof marketEn, string> = {
  'market.title': 'Il mercato vivo',
  'market.intro':
    'Commercianti simulati che mettono in vendita, cambiano prezzi, comprano, pagano, spediscono e annullano in questa sandbox. Avviane uno con `cardbazaar market run --scenario calm` o `cardbazaar serve --market calm`.',
  'market.none': 'Su questo database non è ancora stato avviato alcun mercato.',
  'market.run': 'Scenario {scenario}, seme {seed}: {status}, giorno {day} di {days}.',
  'market.status.running': 'in corso',
  'market.status.paused': 'in pausa',
  'market.status.stopped': 'fermato',
  'market.status.finished': 'finito',
  'market.traders': 'Commercianti',
  'market.kind': 'Tipo',
  'market.count': 'Quanti',
  'market.values': 'Valore reale e guida ai prezzi',
  'market.product': 'Prodotto',
  'market.fair': 'Valore reale',
  'market.actions': 'Ultime azioni',
  'market.time': 'Ora',
  'market.trader': 'Commerciante',
  'market.action': 'Azione',
  'market.reason': 'Motivo',
  'market.outcome': 'Esito',
};
