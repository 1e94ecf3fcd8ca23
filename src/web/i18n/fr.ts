import type { Dictionary } from './index.js';

export const fr = {
  'nav.profile': 'Profil',
  'nav.signIn': 'Se connecter',
  'nav.signOut': 'Se déconnecter',
  'nav.register': 'Créer un compte',
  'nav.languages': 'Langues',

  'docs.title': 'Référence de l’API',
  'docs.noscript': 'La référence a besoin de JavaScript. Le document OpenAPI qu’elle affiche est ici :',

  'home.title': 'Bienvenue',
  'home.heading': 'Un marché de cartes à collectionner que vous pouvez héberger vous-même',
  'home.intro':
    'cardbazaar est un marché de cartes à collectionner qui parle la Marketplace API 2.0 : créez un compte, obtenez les identifiants d’une application et dirigez vos outils vers lui.',
  'home.join': 'Créer un compte',
  'home.toProfile': 'Aller à votre profil',
  'home.apiHeading': 'L’API',
  'home.apiText': 'Les programmes clients signent leurs requêtes avec OAuth 1.0 pour cette adresse de base :',

  'field.username': 'Nom d’utilisateur',
  'field.email': 'Adresse e-mail',
  'field.password': 'Mot de passe',
  'field.newPassword': 'Nouveau mot de passe',
  'field.country': 'Pays',
  'field.usernameOrEmail': 'Nom d’utilisateur ou adresse e-mail',

  'register.title': 'Créer un compte',
  'register.usernameHint': '3 à 40 lettres, chiffres, points, tirets ou tirets bas.',
  'register.passwordHint': 'Au moins 8 caractères.',
  'register.chooseCountry': 'Choisir…',
  'register.submit': 'Créer le compte',
  'register.haveAccount': 'Vous avez déjà un compte ?',

  'login.title': 'Se connecter',
  'login.submit': 'Se connecter',
  'login.forgot': 'Mot de passe oublié ?',
  'login.noAccount': 'Créer un compte',

  'forgot.title': 'Mot de passe oublié ?',
  'forgot.intro':
    'Indiquez votre nom d’utilisateur ou votre adresse e-mail : nous envoyons un lien pour choisir un nouveau mot de passe, valable une heure.',
  'forgot.noMail':
    'Ce serveur n’envoie pas d’e-mails. Demandez un lien à son opérateur (cardbazaar user reset-link NAME).',
  'forgot.submit': 'Envoyer le lien',

  'reset.title': 'Choisir un nouveau mot de passe',
  'reset.submit': 'Enregistrer le nouveau mot de passe',
  'reset.askAgain': 'Demander un nouveau lien',

  'mail.resetSubject': 'Votre mot de passe cardbazaar',
  'mail.resetBody':
    'Bonjour {username},\n\nQuelqu’un, sans doute vous, a demandé un nouveau mot de passe pour votre compte cardbazaar. Ouvrez ce lien dans l’heure pour le choisir :\n\n{link}\n\nSi ce n’était pas vous, ignorez cet e-mail : votre mot de passe ne change pas.\n',

  'profile.title': 'Votre profil',
  'profile.heading': 'Profil de {username}',
  'profile.account': 'Compte',
  'profile.name': 'Nom',
  'profile.address': 'Adresse',
  'profile.registered': 'Membre depuis',
  'profile.moneyBalance': 'Solde',
  'profile.bonusBalance': 'Solde bonus',
  'profile.unpaidAmount': 'Commandes non payées',
  'profile.articlesInCart': 'Articles dans votre panier',
  'profile.unreadMessages': 'Messages non lus',
  'profile.displayLanguage': 'Langue d’affichage',
  'profile.save': 'Enregistrer',
  'profile.onVacation': 'Vous êtes en vacances : vos articles ne sont pas proposés.',
  'profile.notOnVacation': 'Vous n’êtes pas en vacances.',
  'profile.cancelOrders': 'annuler aussi mes commandes non payées',
  'profile.startVacation': 'Partir en vacances',
  'profile.endVacation': 'Revenir de vacances',
  'profile.sellerActivation': 'Vente',

  'activation.state0':
    'Vous pouvez acheter, mais pas encore vendre : pour vendre, activez votre compte vendeur (POST /account/selleractivation avec vos coordonnées bancaires).',
  'activation.state1':
    'Activation vendeur demandée : deux petits virements sont en route vers votre compte bancaire.',
  'activation.state2': 'Deux virements sont arrivés sur votre compte bancaire.',
  'activation.state3': 'Votre compte vendeur est activé : vous pouvez vendre.',
  'activation.transfers': 'Voici les montants envoyés à {iban} :',
  'activation.confirm':
    'Confirmez-les avec PUT /account/selleractivation (amount1, amount2) pour commencer à vendre.',
  'activation.arrive': 'Ils arrivent le {when}.',

  'apps.heading': 'Vos applications',
  'apps.intro':
    'Une application porte les identifiants avec lesquels un programme signe ses requêtes à l’API. Gardez les secrets secrets.',
  'apps.none': 'Vous n’avez pas encore d’application.',
  'apps.appToken': 'Jeton d’application',
  'apps.appSecret': 'Secret d’application',
  'apps.accessToken': 'Jeton d’accès',
  'apps.accessTokenSecret': 'Secret du jeton d’accès',
  'apps.widgetNoToken': 'aucun (les widgets signent avec un jeton d’accès vide)',
  'apps.callbackUrl': 'URL de retour',
  'apps.authorizeLink': 'Envoyez les utilisateurs vers',
  'apps.authorizedUsers': 'Utilisateurs qui l’ont autorisée',
  'apps.regenerate': 'Régénérer le jeton d’accès',
  'apps.revoke': 'Révoquer l’application',
  'apps.create': 'Créer une application',
  'apps.newTitle': 'Créer une application',
  'apps.kind': 'Type d’application',
  'apps.name': 'Nom',
  'apps.callbackHint': 'Applications tierces seulement : une adresse https.',
  'apps.callbackHintSandbox':
    'Applications tierces seulement : une adresse https, ou http://localhost ou http://127.0.0.1 pendant le développement.',
  'apps.createSubmit': 'Créer l’application',
  'apps.back': 'Retour à votre profil',

  'kind.dedicated': 'Dédiée',
  'kind.widget': 'Widget',
  'kind.thirdParty': 'Tierce',
  'kind.dedicatedAbout': 'agit en votre nom, avec son propre jeton d’accès.',
  'kind.widgetAbout': 'lit seulement le marché public.',
  'kind.thirdPartyAbout': 'agit pour les utilisateurs qui l’autorisent ; il lui faut une URL de retour.',

  'authorized.heading': 'Applications que vous avez autorisées',
  'authorized.none': 'Vous n’avez autorisé aucune application tierce.',
  'authorized.app': 'Application',
  'authorized.owner': 'Créée par',
  'authorized.since': 'Depuis',
  'authorized.until': 'Valable jusqu’au',
  'authorized.revoke': 'Révoquer',

  'sessions.heading': 'Connexions',
  'sessions.count': 'Navigateurs connectés à votre compte : {count}.',
  'sessions.signOutEverywhere': 'Se déconnecter partout',

  'consent.title': 'Autoriser {app}',
  'consent.heading': 'Autoriser {app} ?',
  'consent.who': 'L’application {app}, créée par {owner}, demande à utiliser votre compte cardbazaar.',
  'consent.notUs': 'Cette application n’est ni créée ni exploitée par cardbazaar.',
  'consent.signedInAs': 'Vous êtes connecté en tant que',
  'consent.canHeading': 'Elle pourra',
  'consent.canAccount':
    'lire votre compte : nom, adresse, e-mail et soldes, et régler vos vacances et votre langue d’affichage',
  'consent.canStock': 'lire et modifier votre stock : lister, changer les prix et retirer vos articles',
  'consent.canOrders': 'lire vos commandes et changer leur état (envoyer, confirmer, annuler, évaluer)',
  'consent.canCart': 'remplir votre panier et le valider, ce qui crée des commandes que vous devez payer',
  'consent.canMessages': 'lire et envoyer vos messages',
  'consent.canWants': 'lire et modifier vos listes de recherche',
  'consent.cannot': 'Elle ne connaîtra pas votre mot de passe et ne pourra pas le changer.',
  'consent.lasts': 'Jusqu’à ce que vous la révoquiez sur votre profil, ou pendant {days} jours.',
  'consent.nextHeading': 'Où vous allez ensuite',
  'consent.next': 'Si vous l’autorisez, votre navigateur retourne à l’application à l’adresse :',
  'consent.notHttps':
    'Cette adresse n’est pas en https : ce qui lui est envoyé peut être lu en chemin. N’autorisez qu’une application que vous exécutez vous-même.',
  'consent.approve': 'Autoriser',
  'consent.deny': 'Annuler',

  'declined.title': 'Non autorisée',
  'declined.text': 'Vous n’avez pas autorisé {app}. Elle n’obtient rien, et votre navigateur reste ici.',

  'flash.registered': 'Bienvenue, {username} ! Votre compte est prêt.',
  'flash.signedOut': 'Vous êtes déconnecté.',
  'flash.signedOutEverywhere': 'Vous êtes déconnecté partout ({count} navigateurs).',
  'flash.resetSent':
    'Si ce compte existe, un lien pour choisir un nouveau mot de passe part vers son adresse e-mail.',
  'flash.resetNoMail': 'Ce serveur n’envoie pas d’e-mails : demandez un lien à son opérateur.',
  'flash.passwordReset': 'Votre mot de passe est changé : connectez-vous avec lui.',
  'flash.languageChanged': 'Langue d’affichage enregistrée.',
  'flash.vacationOn': 'Vous êtes en vacances.',
  'flash.vacationOff': 'Bon retour : vos articles sont de nouveau proposés.',
  'flash.appCreated': 'L’application {name} est créée : ses identifiants sont ci-dessous.',
  'flash.appRevoked': 'L’application {name} est révoquée : ses identifiants ne fonctionnent plus.',
  'flash.tokenRegenerated': 'Nouveau jeton d’accès : l’ancien ne fonctionne plus.',
  'flash.authorizationRevoked': 'Autorisation révoquée : l’application ne peut plus agir pour vous.',

  'error.title': 'Un problème est survenu',
  'error.notFoundTitle': 'Page introuvable',
  'error.notFound': 'Il n’y a pas de page à cette adresse.',
  'error.csrf':
    'Ce formulaire n’a pas été envoyé depuis ce site, ou sa page est trop ancienne. Revenez en arrière, rechargez la page et renvoyez-le.',
  'error.tooLarge': 'Ce qui a été envoyé est trop volumineux.',
  'error.internal':
    'Un problème est survenu de notre côté. Le journal du serveur a les détails sous l’identifiant de requête {id}.',
  'error.home': 'Retour à la page d’accueil',

  'errors.invalid_username':
    'Un nom d’utilisateur a 3 à 40 lettres, chiffres, points, tirets ou tirets bas, et commence par une lettre ou un chiffre.',
  'errors.username_taken': 'Ce nom d’utilisateur est déjà pris.',
  'errors.invalid_email': 'Indiquez une adresse e-mail comme nom@example.org.',
  'errors.invalid_country': 'Choisissez votre pays.',
  'errors.password_too_short': 'Un mot de passe a au moins {min} caractères.',
  'errors.password_too_long': 'Un mot de passe a au plus {max} caractères.',
  'errors.wrong_credentials': 'Nom d’utilisateur ou mot de passe incorrect.',
  'errors.sign_in_limited': 'Trop de connexions échouées. Attendez quelques minutes, puis réessayez.',
  'errors.reset_link_invalid': 'Ce lien n’est pas valable : il a déjà servi, ou il a plus d’une heure.',
  'errors.callback_required': 'Une application tierce a besoin d’une URL de retour.',
  'errors.callback_invalid':
    'Indiquez une adresse complète comme https://app.example.org/callback, sans #fragment ni mot de passe.',
  'errors.callback_not_https': 'Une URL de retour doit utiliser https.',
  'errors.callback_not_https_sandbox':
    'Une URL de retour doit utiliser https, ou être http://localhost ou http://127.0.0.1.',
  'errors.app_kind_invalid': 'Choisissez le type d’application.',
  'errors.app_name_required': 'Donnez un nom à l’application.',
  'errors.app_name_invalid': 'Un nom d’application a au plus {max} caractères.',
  'errors.too_many_apps':
    'Vous avez autant d’applications qu’un compte peut en avoir : révoquez-en une d’abord.',
  'errors.not_dedicated': 'Seule une application dédiée a un jeton d’accès à régénérer.',
  'errors.app_kind_not_allowed': 'Seules les applications tierces demandent une autorisation.',
} satisfies Dictionary;
