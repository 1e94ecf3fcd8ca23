import type { Dictionary } from './index.js';

export const it = {
  'nav.profile': 'Profilo',
  'nav.signIn': 'Accedi',
  'nav.signOut': 'Esci',
  'nav.register': 'Crea un account',
  'nav.languages': 'Lingue',

  'docs.title': 'Riferimento dell’API',
  'docs.noscript': 'Il riferimento richiede JavaScript. Il documento OpenAPI che mostra è qui:',

  'home.title': 'Benvenuto',
  'home.heading': 'Un mercato di carte collezionabili che puoi gestire da solo',
  'home.intro':
    'cardbazaar è un mercato di carte collezionabili che parla la Marketplace API 2.0: crea un account, ottieni le credenziali di un’app e punta i tuoi strumenti verso di esso.',
  'home.join': 'Crea un account',
  'home.toProfile': 'Vai al tuo profilo',
  'home.apiHeading': 'L’API',
  'home.apiText': 'I programmi client firmano le loro richieste con OAuth 1.0 per questo indirizzo di base:',

  'field.username': 'Nome utente',
  'field.email': 'Indirizzo e-mail',
  'field.password': 'Password',
  'field.newPassword': 'Nuova password',
  'field.country': 'Paese',
  'field.usernameOrEmail': 'Nome utente o indirizzo e-mail',

  'register.title': 'Crea un account',
  'register.usernameHint': 'Da 3 a 40 lettere, cifre, punti, trattini o trattini bassi.',
  'register.passwordHint': 'Almeno 8 caratteri.',
  'register.chooseCountry': 'Scegli…',
  'register.submit': 'Crea l’account',
  'register.haveAccount': 'Hai già un account?',

  'login.title': 'Accedi',
  'login.submit': 'Accedi',
  'login.forgot': 'Password dimenticata?',
  'login.noAccount': 'Crea un account',

  'forgot.title': 'Password dimenticata?',
  'forgot.intro':
    'Indica il tuo nome utente o il tuo indirizzo e-mail: ti inviamo un link per scegliere una nuova password, valido per un’ora.',
  'forgot.noMail':
    'Questo server non invia e-mail. Chiedi un link al suo gestore (cardbazaar user reset-link NAME).',
  'forgot.submit': 'Invia il link',

  'reset.title': 'Scegli una nuova password',
  'reset.submit': 'Salva la nuova password',
  'reset.askAgain': 'Chiedi un nuovo link',

  'mail.resetSubject': 'La tua password di cardbazaar',
  'mail.resetBody':
    'Ciao {username},\n\nqualcuno, probabilmente tu, ha chiesto una nuova password per il tuo account cardbazaar. Apri questo link entro un’ora per sceglierla:\n\n{link}\n\nSe non sei stato tu, ignora questa e-mail: la tua password resta invariata.\n',

  'profile.title': 'Il tuo profilo',
  'profile.heading': 'Profilo di {username}',
  'profile.account': 'Account',
  'profile.name': 'Nome',
  'profile.address': 'Indirizzo',
  'profile.registered': 'Membro dal',
  'profile.moneyBalance': 'Saldo',
  'profile.bonusBalance': 'Saldo bonus',
  'profile.unpaidAmount': 'Ordini non pagati',
  'profile.articlesInCart': 'Articoli nel carrello',
  'profile.unreadMessages': 'Messaggi non letti',
  'profile.displayLanguage': 'Lingua di visualizzazione',
  'profile.save': 'Salva',
  'profile.onVacation': 'Sei in vacanza: i tuoi articoli non sono in vendita.',
  'profile.notOnVacation': 'Non sei in vacanza.',
  'profile.cancelOrders': 'annulla anche i miei ordini non pagati',
  'profile.startVacation': 'Vai in vacanza',
  'profile.endVacation': 'Torna dalle vacanze',
  'profile.sellerActivation': 'Vendere',

  'activation.state0':
    'Puoi comprare, ma non ancora vendere: per vendere, attiva il tuo account venditore (POST /account/selleractivation con i tuoi dati bancari).',
  'activation.state1':
    'Attivazione venditore richiesta: due piccoli bonifici stanno arrivando sul tuo conto bancario.',
  'activation.state2': 'Due bonifici sono arrivati sul tuo conto bancario.',
  'activation.state3': 'Il tuo account venditore è attivo: puoi vendere.',
  'activation.transfers': 'Questi sono gli importi inviati a {iban}:',
  'activation.confirm':
    'Confermali con PUT /account/selleractivation (amount1, amount2) per iniziare a vendere.',
  'activation.arrive': 'Arrivano il {when}.',

  'apps.heading': 'Le tue app',
  'apps.intro':
    'Un’app contiene le credenziali con cui un programma firma le sue richieste all’API. Tieni segreti i segreti.',
  'apps.none': 'Non hai ancora nessuna app.',
  'apps.appToken': 'Token dell’app',
  'apps.appSecret': 'Segreto dell’app',
  'apps.accessToken': 'Token di accesso',
  'apps.accessTokenSecret': 'Segreto del token di accesso',
  'apps.widgetNoToken': 'nessuno (i widget firmano con un token di accesso vuoto)',
  'apps.callbackUrl': 'URL di ritorno',
  'apps.authorizeLink': 'Manda gli utenti a',
  'apps.authorizedUsers': 'Utenti che l’hanno autorizzata',
  'apps.regenerate': 'Rigenera il token di accesso',
  'apps.revoke': 'Revoca l’app',
  'apps.create': 'Crea un’app',
  'apps.newTitle': 'Crea un’app',
  'apps.kind': 'Tipo di app',
  'apps.name': 'Nome',
  'apps.callbackHint': 'Solo app di terze parti: un indirizzo https.',
  'apps.callbackHintSandbox':
    'Solo app di terze parti: un indirizzo https, oppure http://localhost o http://127.0.0.1 durante lo sviluppo.',
  'apps.createSubmit': 'Crea l’app',
  'apps.back': 'Torna al tuo profilo',

  'kind.dedicated': 'Dedicata',
  'kind.widget': 'Widget',
  'kind.thirdParty': 'Di terze parti',
  'kind.dedicatedAbout': 'agisce come te, con un proprio token di accesso.',
  'kind.widgetAbout': 'legge solo il mercato pubblico.',
  'kind.thirdPartyAbout': 'agisce per gli utenti che la autorizzano; richiede un URL di ritorno.',

  'authorized.heading': 'App che hai autorizzato',
  'authorized.none': 'Non hai autorizzato nessuna app di terze parti.',
  'authorized.app': 'App',
  'authorized.owner': 'Creata da',
  'authorized.since': 'Dal',
  'authorized.until': 'Valida fino al',
  'authorized.revoke': 'Revoca',

  'sessions.heading': 'Accessi',
  'sessions.count': 'Browser collegati al tuo account: {count}.',
  'sessions.signOutEverywhere': 'Esci ovunque',

  'consent.title': 'Autorizza {app}',
  'consent.heading': 'Autorizzare {app}?',
  'consent.who': 'L’app {app}, creata da {owner}, chiede di usare il tuo account cardbazaar.',
  'consent.notUs': 'Questa app non è creata né gestita da cardbazaar.',
  'consent.signedInAs': 'Hai effettuato l’accesso come',
  'consent.canHeading': 'Potrà',
  'consent.canAccount':
    'leggere il tuo account: nome, indirizzo, e-mail e saldi, e impostare vacanze e lingua',
  'consent.canStock':
    'leggere e modificare il tuo inventario: mettere in vendita, cambiare prezzo e togliere i tuoi articoli',
  'consent.canOrders':
    'leggere i tuoi ordini e cambiarne lo stato (spedire, confermare, annullare, valutare)',
  'consent.canCart': 'riempire il tuo carrello e completare l’acquisto, creando ordini che devi pagare',
  'consent.canMessages': 'leggere e inviare i tuoi messaggi',
  'consent.canWants': 'leggere e modificare le tue liste dei desideri',
  'consent.cannot': 'Non conoscerà la tua password e non potrà cambiarla.',
  'consent.lasts': 'Finché non la revochi sul tuo profilo, o per {days} giorni.',
  'consent.nextHeading': 'Dove vai dopo',
  'consent.next': 'Se la autorizzi, il tuo browser torna all’app all’indirizzo:',
  'consent.notHttps':
    'Questo indirizzo non è https: ciò che gli viene inviato può essere letto lungo il percorso. Autorizza solo un’app che gestisci tu.',
  'consent.approve': 'Autorizza',
  'consent.deny': 'Annulla',

  'declined.title': 'Non autorizzata',
  'declined.text': 'Non hai autorizzato {app}. Non riceve nulla e il tuo browser resta qui.',

  'flash.registered': 'Benvenuto, {username}! Il tuo account è pronto.',
  'flash.signedOut': 'Sei uscito.',
  'flash.signedOutEverywhere': 'Sei uscito ovunque ({count} browser).',
  'flash.resetSent':
    'Se quell’account esiste, un link per scegliere una nuova password sta arrivando al suo indirizzo e-mail.',
  'flash.resetNoMail': 'Questo server non invia e-mail: chiedi un link al suo gestore.',
  'flash.passwordReset': 'La tua password è cambiata: accedi con quella nuova.',
  'flash.languageChanged': 'Lingua di visualizzazione salvata.',
  'flash.vacationOn': 'Sei in vacanza.',
  'flash.vacationOff': 'Bentornato: i tuoi articoli sono di nuovo in vendita.',
  'flash.appCreated': 'L’app {name} è creata: le sue credenziali sono qui sotto.',
  'flash.appRevoked': 'L’app {name} è revocata: le sue credenziali non funzionano più.',
  'flash.tokenRegenerated': 'Nuovo token di accesso: quello vecchio non funziona più.',
  'flash.authorizationRevoked': 'Autorizzazione revocata: l’app non può più agire per te.',

  'error.title': 'Qualcosa è andato storto',
  'error.notFoundTitle': 'Pagina non trovata',
  'error.notFound': 'Non c’è nessuna pagina a questo indirizzo.',
  'error.csrf':
    'Questo modulo non è stato inviato da questo sito, o la sua pagina è troppo vecchia. Torna indietro, ricarica la pagina e invialo di nuovo.',
  'error.tooLarge': 'Ciò che è stato inviato è troppo grande.',
  'error.internal':
    'Qualcosa è andato storto da parte nostra. Il registro del server ha i dettagli con l’identificativo di richiesta {id}.',
  'error.home': 'Torna alla pagina iniziale',

  'errors.invalid_username':
    'Un nome utente ha da 3 a 40 lettere, cifre, punti, trattini o trattini bassi, e inizia con una lettera o una cifra.',
  'errors.username_taken': 'Questo nome utente è già in uso.',
  'errors.invalid_email': 'Indica un indirizzo e-mail come nome@example.org.',
  'errors.invalid_country': 'Scegli il tuo paese.',
  'errors.password_too_short': 'Una password ha almeno {min} caratteri.',
  'errors.password_too_long': 'Una password ha al massimo {max} caratteri.',
  'errors.wrong_credentials': 'Nome utente o password errati.',
  'errors.sign_in_limited': 'Troppi accessi falliti. Aspetta qualche minuto, poi riprova.',
  'errors.reset_link_invalid': 'Questo link non è valido: è già stato usato o ha più di un’ora.',
  'errors.callback_required': 'Un’app di terze parti richiede un URL di ritorno.',
  'errors.callback_invalid':
    'Indica un indirizzo completo come https://app.example.org/callback, senza #frammento né password.',
  'errors.callback_not_https': 'Un URL di ritorno deve usare https.',
  'errors.callback_not_https_sandbox':
    'Un URL di ritorno deve usare https, oppure essere http://localhost o http://127.0.0.1.',
  'errors.app_kind_invalid': 'Scegli il tipo di app.',
  'errors.app_name_required': 'Dai un nome all’app.',
  'errors.app_name_invalid': 'Il nome di un’app ha al massimo {max} caratteri.',
  'errors.too_many_apps': 'Hai tutte le app che un account può avere: revocane prima una.',
  'errors.not_dedicated': 'Solo un’app dedicata ha un token di accesso da rigenerare.',
  'errors.app_kind_not_allowed': 'Solo le app di terze parti chiedono un’autorizzazione.',
} satisfies Dictionary;
