import type { Dictionary } from './index.js';

export const de = {
  'nav.profile': 'Profil',
  'nav.signIn': 'Anmelden',
  'nav.signOut': 'Abmelden',
  'nav.register': 'Konto anlegen',
  'nav.languages': 'Sprachen',

  'docs.title': 'API-Referenz',
  'docs.noscript': 'Die Referenz braucht JavaScript. Das OpenAPI-Dokument, das sie zeigt, liegt hier:',

  'home.title': 'Willkommen',
  'home.heading': 'Ein Sammelkarten-Marktplatz, den Sie selbst betreiben können',
  'home.intro':
    'cardbazaar ist ein Marktplatz für Sammelkarten, der die Marketplace API 2.0 spricht: Legen Sie ein Konto an, holen Sie sich die Zugangsdaten einer App und richten Sie Ihre Programme darauf.',
  'home.join': 'Konto anlegen',
  'home.toProfile': 'Zu Ihrem Profil',
  'home.apiHeading': 'Die API',
  'home.apiText': 'Client-Programme signieren ihre Anfragen mit OAuth 1.0 für diese Basisadresse:',

  'field.username': 'Benutzername',
  'field.email': 'E-Mail-Adresse',
  'field.password': 'Passwort',
  'field.newPassword': 'Neues Passwort',
  'field.country': 'Land',
  'field.usernameOrEmail': 'Benutzername oder E-Mail-Adresse',

  'register.title': 'Konto anlegen',
  'register.usernameHint': '3 bis 40 Buchstaben, Ziffern, Punkte, Bindestriche oder Unterstriche.',
  'register.passwordHint': 'Mindestens 8 Zeichen.',
  'register.chooseCountry': 'Bitte wählen…',
  'register.submit': 'Konto anlegen',
  'register.haveAccount': 'Sie haben schon ein Konto?',

  'login.title': 'Anmelden',
  'login.submit': 'Anmelden',
  'login.forgot': 'Passwort vergessen?',
  'login.noAccount': 'Konto anlegen',

  'forgot.title': 'Passwort vergessen?',
  'forgot.intro':
    'Geben Sie Ihren Benutzernamen oder Ihre E-Mail-Adresse an: Wir schicken einen Link, mit dem Sie ein neues Passwort wählen, eine Stunde lang gültig.',
  'forgot.noMail':
    'Dieser Server verschickt keine E-Mails. Bitten Sie den Betreiber um einen Link (cardbazaar user reset-link NAME).',
  'forgot.submit': 'Link schicken',

  'reset.title': 'Neues Passwort wählen',
  'reset.submit': 'Neues Passwort speichern',
  'reset.askAgain': 'Neuen Link anfordern',

  'mail.resetSubject': 'Ihr cardbazaar-Passwort',
  'mail.resetBody':
    'Hallo {username},\n\njemand, wahrscheinlich Sie, hat ein neues Passwort für Ihr cardbazaar-Konto angefordert. Öffnen Sie innerhalb einer Stunde diesen Link, um es zu wählen:\n\n{link}\n\nWenn Sie es nicht waren, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist.\n',

  'activation.intro':
    'Um zu verkaufen, aktivieren Sie Ihr Verkäuferkonto: Geben Sie das Bankkonto an, auf das Ihre Verkäufe ausgezahlt werden. Dorthin gehen zwei kleine Überweisungen; tragen Sie deren Beträge unten ein, sobald sie da sind.',
  'activation.accountOwner': 'Kontoinhaber',
  'activation.iban': 'IBAN',
  'activation.bic': 'BIC',
  'activation.bankName': 'Bank',
  'activation.phoneNumber': 'Telefonnummer',
  'activation.request': 'Verkäuferaktivierung beantragen',
  'activation.amount1': 'Erster Betrag',
  'activation.amount2': 'Zweiter Betrag',
  'activation.amountHint': 'In Euro, z. B. 0,37 – in beliebiger Reihenfolge.',
  'activation.complete': 'Mein Verkäuferkonto aktivieren',
  'password.heading': 'Passwort',
  'password.current': 'Aktuelles Passwort',
  'password.signsOut': 'Eine Passwortänderung meldet Sie überall ab, auch in diesem Browser.',
  'password.change': 'Passwort ändern',
  'flash.activationRequested':
    'Verkäuferaktivierung beantragt: Zwei Überweisungen sind auf dem Weg zu Ihrem Bankkonto.',
  'flash.activationCompleted': 'Ihr Verkäuferkonto ist aktiviert: Sie dürfen verkaufen.',
  'flash.passwordChanged': 'Ihr Passwort ist geändert: Melden Sie sich mit dem neuen an.',
  'errors.current_password_wrong': 'Das ist nicht Ihr aktuelles Passwort.',
  'profile.title': 'Ihr Profil',
  'profile.heading': 'Profil von {username}',
  'profile.account': 'Konto',
  'profile.name': 'Name',
  'profile.address': 'Adresse',
  'profile.registered': 'Mitglied seit',
  'profile.moneyBalance': 'Guthaben',
  'profile.bonusBalance': 'Bonusguthaben',
  'profile.unpaidAmount': 'Unbezahlte Bestellungen',
  'profile.articlesInCart': 'Artikel im Warenkorb',
  'profile.unreadMessages': 'Ungelesene Nachrichten',
  'profile.displayLanguage': 'Anzeigesprache',
  'profile.save': 'Speichern',
  'profile.onVacation': 'Sie sind im Urlaub: Ihre Artikel werden nicht angeboten.',
  'profile.notOnVacation': 'Sie sind nicht im Urlaub.',
  'profile.cancelOrders': 'auch meine unbezahlten Bestellungen stornieren',
  'profile.startVacation': 'In den Urlaub gehen',
  'profile.endVacation': 'Aus dem Urlaub zurückkehren',
  'profile.sellerActivation': 'Verkaufen',

  'activation.state0':
    'Sie können kaufen, aber noch nicht verkaufen: Aktivieren Sie dazu Ihr Verkäuferkonto (POST /account/selleractivation mit Ihrer Bankverbindung).',
  'activation.state1':
    'Verkäuferaktivierung beantragt: Zwei kleine Überweisungen sind auf dem Weg zu Ihrem Bankkonto.',
  'activation.state2': 'Zwei Überweisungen sind auf Ihrem Bankkonto eingegangen.',
  'activation.state3': 'Ihr Verkäuferkonto ist aktiviert: Sie können verkaufen.',
  'activation.transfers': 'Diese Beträge wurden an {iban} überwiesen:',
  'activation.confirm':
    'Bestätigen Sie sie mit PUT /account/selleractivation (amount1, amount2), um mit dem Verkaufen zu beginnen.',
  'activation.arrive': 'Sie kommen am {when} an.',

  'apps.heading': 'Ihre Apps',
  'apps.intro':
    'Eine App enthält die Zugangsdaten, mit denen ein Programm seine API-Anfragen signiert. Halten Sie die Geheimnisse geheim.',
  'apps.none': 'Sie haben noch keine App.',
  'apps.appToken': 'App-Token',
  'apps.appSecret': 'App-Secret',
  'apps.accessToken': 'Access-Token',
  'apps.accessTokenSecret': 'Access-Token-Secret',
  'apps.widgetNoToken': 'keins (Widget-Apps signieren mit leerem Access-Token)',
  'apps.callbackUrl': 'Callback-URL',
  'apps.authorizeLink': 'Nutzer hierhin schicken',
  'apps.authorizedUsers': 'Nutzer, die sie autorisiert haben',
  'apps.regenerate': 'Access-Token neu erzeugen',
  'apps.revoke': 'App widerrufen',
  'apps.create': 'App anlegen',
  'apps.newTitle': 'App anlegen',
  'apps.kind': 'Art der App',
  'apps.name': 'Name',
  'apps.callbackHint': 'Nur für Drittanbieter-Apps: eine https-Adresse.',
  'apps.callbackHintSandbox':
    'Nur für Drittanbieter-Apps: eine https-Adresse, oder http://localhost bzw. http://127.0.0.1 während der Entwicklung.',
  'apps.createSubmit': 'App anlegen',
  'apps.back': 'Zurück zu Ihrem Profil',

  'kind.dedicated': 'Dediziert',
  'kind.widget': 'Widget',
  'kind.thirdParty': 'Drittanbieter',
  'kind.dedicatedAbout': 'handelt als Sie, mit eigenem Access-Token.',
  'kind.widgetAbout': 'liest nur den öffentlichen Marktplatz.',
  'kind.thirdPartyAbout': 'handelt für die Nutzer, die sie autorisieren; braucht eine Callback-URL.',

  'authorized.heading': 'Von Ihnen autorisierte Apps',
  'authorized.none': 'Sie haben keine Drittanbieter-App autorisiert.',
  'authorized.app': 'App',
  'authorized.owner': 'Von',
  'authorized.since': 'Seit',
  'authorized.until': 'Gültig bis',
  'authorized.revoke': 'Widerrufen',

  'sessions.heading': 'Anmeldungen',
  'sessions.count': 'Bei Ihrem Konto angemeldete Browser: {count}.',
  'sessions.signOutEverywhere': 'Überall abmelden',

  'consent.title': '{app} autorisieren',
  'consent.heading': '{app} autorisieren?',
  'consent.who': 'Die App {app} von {owner} möchte Ihr cardbazaar-Konto verwenden.',
  'consent.notUs': 'Diese App wird nicht von cardbazaar entwickelt oder betrieben.',
  'consent.signedInAs': 'Sie sind angemeldet als',
  'consent.canHeading': 'Sie wird Folgendes können',
  'consent.canAccount':
    'Ihr Konto lesen: Name, Adresse, E-Mail und Guthaben, sowie Urlaub und Anzeigesprache einstellen',
  'consent.canStock': 'Ihren Bestand lesen und ändern: Ihre Artikel einstellen, neu bepreisen und entfernen',
  'consent.canOrders':
    'Ihre Bestellungen lesen und ihren Status ändern (versenden, bestätigen, stornieren, bewerten)',
  'consent.canCart':
    'Ihren Warenkorb füllen und bestellen, wodurch Bestellungen entstehen, die Sie bezahlen müssen',
  'consent.canMessages': 'Ihre Nachrichten lesen und senden',
  'consent.canWants': 'Ihre Suchlisten lesen und ändern',
  'consent.cannot': 'Sie erfährt Ihr Passwort nicht und kann es nicht ändern.',
  'consent.lasts': 'Bis Sie sie in Ihrem Profil widerrufen, höchstens {days} Tage.',
  'consent.nextHeading': 'Wohin es danach geht',
  'consent.next': 'Wenn Sie zustimmen, kehrt Ihr Browser zur App zurück, an diese Adresse:',
  'consent.notHttps':
    'Diese Adresse verwendet kein https: Was dorthin geschickt wird, kann unterwegs mitgelesen werden. Autorisieren Sie nur eine App, die Sie selbst betreiben.',
  'consent.approve': 'Autorisieren',
  'consent.deny': 'Abbrechen',

  'declined.title': 'Nicht autorisiert',
  'declined.text': 'Sie haben {app} nicht autorisiert. Die App bekommt nichts, und Ihr Browser bleibt hier.',

  'flash.registered': 'Willkommen, {username}! Ihr Konto ist bereit.',
  'flash.signedOut': 'Sie sind abgemeldet.',
  'flash.signedOutEverywhere': 'Sie sind überall abgemeldet ({count} Browser).',
  'flash.resetSent':
    'Falls dieses Konto existiert, ist ein Link für ein neues Passwort an seine E-Mail-Adresse unterwegs.',
  'flash.resetNoMail': 'Dieser Server verschickt keine E-Mails: Bitten Sie den Betreiber um einen Link.',
  'flash.passwordReset': 'Ihr Passwort ist geändert: Melden Sie sich damit an.',
  'flash.languageChanged': 'Anzeigesprache gespeichert.',
  'flash.vacationOn': 'Sie sind im Urlaub.',
  'flash.vacationOff': 'Willkommen zurück: Ihre Artikel werden wieder angeboten.',
  'flash.appCreated': 'Die App {name} ist angelegt: Ihre Zugangsdaten stehen unten.',
  'flash.appRevoked': 'Die App {name} ist widerrufen: Ihre Zugangsdaten funktionieren nicht mehr.',
  'flash.tokenRegenerated': 'Neues Access-Token: Das alte funktioniert nicht mehr.',
  'flash.authorizationRevoked': 'Autorisierung widerrufen: Die App kann nicht mehr für Sie handeln.',

  'error.title': 'Etwas ist schiefgegangen',
  'error.notFoundTitle': 'Seite nicht gefunden',
  'error.notFound': 'Unter dieser Adresse gibt es keine Seite.',
  'error.csrf':
    'Dieses Formular wurde nicht von dieser Website gesendet, oder seine Seite ist zu alt. Gehen Sie zurück, laden Sie die Seite neu und senden Sie es noch einmal.',
  'error.tooLarge': 'Was gesendet wurde, ist zu groß.',
  'error.internal':
    'Bei uns ist etwas schiefgegangen. Das Serverprotokoll enthält die Details unter der Anfrage-ID {id}.',
  'error.home': 'Zurück zur Startseite',

  'errors.invalid_username':
    'Ein Benutzername hat 3 bis 40 Buchstaben, Ziffern, Punkte, Bindestriche oder Unterstriche und beginnt mit einem Buchstaben oder einer Ziffer.',
  'errors.username_taken': 'Dieser Benutzername ist vergeben.',
  'errors.invalid_email': 'Geben Sie eine E-Mail-Adresse wie name@example.org an.',
  'errors.invalid_country': 'Wählen Sie Ihr Land.',
  'errors.password_too_short': 'Ein Passwort hat mindestens {min} Zeichen.',
  'errors.password_too_long': 'Ein Passwort hat höchstens {max} Zeichen.',
  'errors.wrong_credentials': 'Falscher Benutzername oder falsches Passwort.',
  'errors.sign_in_limited':
    'Zu viele fehlgeschlagene Anmeldungen. Warten Sie einige Minuten und versuchen Sie es dann erneut.',
  'errors.reset_link_invalid':
    'Dieser Link ist nicht gültig: Er wurde schon benutzt oder ist älter als eine Stunde.',
  'errors.callback_required': 'Eine Drittanbieter-App braucht eine Callback-URL.',
  'errors.callback_invalid':
    'Geben Sie eine vollständige Adresse wie https://app.example.org/callback an, ohne #Fragment und ohne Passwort.',
  'errors.callback_not_https': 'Eine Callback-URL muss https verwenden.',
  'errors.callback_not_https_sandbox':
    'Eine Callback-URL muss https verwenden oder http://localhost bzw. http://127.0.0.1 sein.',
  'errors.app_kind_invalid': 'Wählen Sie die Art der App.',
  'errors.app_name_required': 'Geben Sie der App einen Namen.',
  'errors.app_name_invalid': 'Ein App-Name hat höchstens {max} Zeichen.',
  'errors.too_many_apps': 'Sie haben so viele Apps, wie ein Konto haben darf: Widerrufen Sie zuerst eine.',
  'errors.not_dedicated': 'Nur eine dedizierte App hat ein Access-Token zum Neuerzeugen.',
  'errors.app_kind_not_allowed': 'Nur Drittanbieter-Apps fragen nach einer Autorisierung.',
} satisfies Dictionary;
