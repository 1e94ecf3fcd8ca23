import type { Dictionary } from './index.js';

export const es = {
  'nav.profile': 'Perfil',
  'nav.signIn': 'Iniciar sesión',
  'nav.signOut': 'Cerrar sesión',
  'nav.register': 'Crear una cuenta',
  'nav.languages': 'Idiomas',

  'docs.title': 'Referencia de la API',
  'docs.noscript': 'La referencia necesita JavaScript. El documento OpenAPI que muestra está aquí:',

  'home.title': 'Bienvenido',
  'home.heading': 'Un mercado de cartas coleccionables que puedes alojar tú mismo',
  'home.intro':
    'cardbazaar es un mercado de cartas coleccionables que habla la Marketplace API 2.0: crea una cuenta, obtén las credenciales de una aplicación y apunta tus herramientas hacia él.',
  'home.join': 'Crear una cuenta',
  'home.toProfile': 'Ir a tu perfil',
  'home.apiHeading': 'La API',
  'home.apiText': 'Los programas cliente firman sus peticiones con OAuth 1.0 para esta dirección base:',

  'field.username': 'Nombre de usuario',
  'field.email': 'Correo electrónico',
  'field.password': 'Contraseña',
  'field.newPassword': 'Nueva contraseña',
  'field.country': 'País',
  'field.usernameOrEmail': 'Nombre de usuario o correo electrónico',

  'register.title': 'Crear una cuenta',
  'register.usernameHint': 'De 3 a 40 letras, cifras, puntos, guiones o guiones bajos.',
  'register.passwordHint': 'Al menos 8 caracteres.',
  'register.chooseCountry': 'Elige…',
  'register.submit': 'Crear la cuenta',
  'register.haveAccount': '¿Ya tienes una cuenta?',

  'login.title': 'Iniciar sesión',
  'login.submit': 'Iniciar sesión',
  'login.forgot': '¿Olvidaste tu contraseña?',
  'login.noAccount': 'Crear una cuenta',

  'forgot.title': '¿Olvidaste tu contraseña?',
  'forgot.intro':
    'Indica tu nombre de usuario o tu correo electrónico: te enviamos un enlace para elegir una nueva contraseña, válido durante una hora.',
  'forgot.noMail':
    'Este servidor no envía correos. Pide un enlace a su operador (cardbazaar user reset-link NAME).',
  'forgot.submit': 'Enviar el enlace',

  'reset.title': 'Elegir una nueva contraseña',
  'reset.submit': 'Guardar la nueva contraseña',
  'reset.askAgain': 'Pedir un nuevo enlace',

  'mail.resetSubject': 'Tu contraseña de cardbazaar',
  'mail.resetBody':
    'Hola, {username}:\n\nAlguien, probablemente tú, ha pedido una nueva contraseña para tu cuenta de cardbazaar. Abre este enlace en el plazo de una hora para elegirla:\n\n{link}\n\nSi no fuiste tú, ignora este correo: tu contraseña no cambia.\n',

  'profile.title': 'Tu perfil',
  'profile.heading': 'Perfil de {username}',
  'profile.account': 'Cuenta',
  'profile.name': 'Nombre',
  'profile.address': 'Dirección',
  'profile.registered': 'Miembro desde',
  'profile.moneyBalance': 'Saldo',
  'profile.bonusBalance': 'Saldo de bonificación',
  'profile.unpaidAmount': 'Pedidos sin pagar',
  'profile.articlesInCart': 'Artículos en tu carrito',
  'profile.unreadMessages': 'Mensajes sin leer',
  'profile.displayLanguage': 'Idioma de visualización',
  'profile.save': 'Guardar',
  'profile.onVacation': 'Estás de vacaciones: tus artículos no se ofrecen.',
  'profile.notOnVacation': 'No estás de vacaciones.',
  'profile.cancelOrders': 'cancelar también mis pedidos sin pagar',
  'profile.startVacation': 'Irme de vacaciones',
  'profile.endVacation': 'Volver de vacaciones',
  'profile.sellerActivation': 'Vender',

  'activation.state0':
    'Puedes comprar, pero aún no vender: para vender, activa tu cuenta de vendedor (POST /account/selleractivation con tus datos bancarios).',
  'activation.state1':
    'Activación de vendedor solicitada: dos pequeñas transferencias van de camino a tu cuenta bancaria.',
  'activation.state2': 'Dos transferencias han llegado a tu cuenta bancaria.',
  'activation.state3': 'Tu cuenta de vendedor está activada: puedes vender.',
  'activation.transfers': 'Estos son los importes enviados a {iban}:',
  'activation.confirm':
    'Confírmalos con PUT /account/selleractivation (amount1, amount2) para empezar a vender.',
  'activation.arrive': 'Llegan el {when}.',

  'apps.heading': 'Tus aplicaciones',
  'apps.intro':
    'Una aplicación contiene las credenciales con las que un programa firma sus peticiones a la API. Mantén los secretos en secreto.',
  'apps.none': 'Aún no tienes ninguna aplicación.',
  'apps.appToken': 'Token de aplicación',
  'apps.appSecret': 'Secreto de aplicación',
  'apps.accessToken': 'Token de acceso',
  'apps.accessTokenSecret': 'Secreto del token de acceso',
  'apps.widgetNoToken': 'ninguno (los widgets firman con un token de acceso vacío)',
  'apps.callbackUrl': 'URL de retorno',
  'apps.authorizeLink': 'Envía a los usuarios a',
  'apps.authorizedUsers': 'Usuarios que la han autorizado',
  'apps.regenerate': 'Regenerar el token de acceso',
  'apps.revoke': 'Revocar la aplicación',
  'apps.create': 'Crear una aplicación',
  'apps.newTitle': 'Crear una aplicación',
  'apps.kind': 'Tipo de aplicación',
  'apps.name': 'Nombre',
  'apps.callbackHint': 'Solo aplicaciones de terceros: una dirección https.',
  'apps.callbackHintSandbox':
    'Solo aplicaciones de terceros: una dirección https, o http://localhost o http://127.0.0.1 mientras desarrollas.',
  'apps.createSubmit': 'Crear la aplicación',
  'apps.back': 'Volver a tu perfil',

  'kind.dedicated': 'Dedicada',
  'kind.widget': 'Widget',
  'kind.thirdParty': 'De terceros',
  'kind.dedicatedAbout': 'actúa como tú, con su propio token de acceso.',
  'kind.widgetAbout': 'solo lee el mercado público.',
  'kind.thirdPartyAbout': 'actúa para los usuarios que la autorizan; necesita una URL de retorno.',

  'authorized.heading': 'Aplicaciones que has autorizado',
  'authorized.none': 'No has autorizado ninguna aplicación de terceros.',
  'authorized.app': 'Aplicación',
  'authorized.owner': 'Creada por',
  'authorized.since': 'Desde',
  'authorized.until': 'Válida hasta',
  'authorized.revoke': 'Revocar',

  'sessions.heading': 'Sesiones',
  'sessions.count': 'Navegadores con sesión iniciada en tu cuenta: {count}.',
  'sessions.signOutEverywhere': 'Cerrar sesión en todas partes',

  'consent.title': 'Autorizar {app}',
  'consent.heading': '¿Autorizar {app}?',
  'consent.who': 'La aplicación {app}, creada por {owner}, pide usar tu cuenta de cardbazaar.',
  'consent.notUs': 'Esta aplicación no está creada ni gestionada por cardbazaar.',
  'consent.signedInAs': 'Has iniciado sesión como',
  'consent.canHeading': 'Podrá',
  'consent.canAccount':
    'leer tu cuenta: nombre, dirección, correo y saldos, y ajustar tus vacaciones y tu idioma',
  'consent.canStock': 'leer y cambiar tu inventario: publicar, cambiar el precio y retirar tus artículos',
  'consent.canOrders': 'leer tus pedidos y cambiar su estado (enviar, confirmar, cancelar, valorar)',
  'consent.canCart': 'llenar tu carrito y finalizar la compra, lo que crea pedidos que debes pagar',
  'consent.canMessages': 'leer y enviar tus mensajes',
  'consent.canWants': 'leer y cambiar tus listas de deseos',
  'consent.cannot': 'No conocerá tu contraseña y no podrá cambiarla.',
  'consent.lasts': 'Hasta que la revoques en tu perfil, o durante {days} días.',
  'consent.nextHeading': 'Adónde vas después',
  'consent.next': 'Si la autorizas, tu navegador vuelve a la aplicación en la dirección:',
  'consent.notHttps':
    'Esta dirección no es https: lo que se le envía puede leerse por el camino. Autoriza solo una aplicación que ejecutes tú mismo.',
  'consent.approve': 'Autorizar',
  'consent.deny': 'Cancelar',

  'declined.title': 'No autorizada',
  'declined.text': 'No has autorizado {app}. No recibe nada y tu navegador se queda aquí.',

  'flash.registered': '¡Bienvenido, {username}! Tu cuenta está lista.',
  'flash.signedOut': 'Has cerrado la sesión.',
  'flash.signedOutEverywhere': 'Has cerrado la sesión en todas partes ({count} navegadores).',
  'flash.resetSent':
    'Si esa cuenta existe, un enlace para elegir una nueva contraseña va de camino a su correo.',
  'flash.resetNoMail': 'Este servidor no envía correos: pide un enlace a su operador.',
  'flash.passwordReset': 'Tu contraseña ha cambiado: inicia sesión con ella.',
  'flash.languageChanged': 'Idioma de visualización guardado.',
  'flash.vacationOn': 'Estás de vacaciones.',
  'flash.vacationOff': 'Bienvenido de nuevo: tus artículos vuelven a ofrecerse.',
  'flash.appCreated': 'La aplicación {name} está creada: sus credenciales están abajo.',
  'flash.appRevoked': 'La aplicación {name} está revocada: sus credenciales ya no funcionan.',
  'flash.tokenRegenerated': 'Nuevo token de acceso: el anterior ya no funciona.',
  'flash.authorizationRevoked': 'Autorización revocada: la aplicación ya no puede actuar por ti.',

  'error.title': 'Algo ha salido mal',
  'error.notFoundTitle': 'Página no encontrada',
  'error.notFound': 'No hay ninguna página en esta dirección.',
  'error.csrf':
    'Este formulario no se envió desde este sitio, o su página es demasiado antigua. Vuelve atrás, recarga la página y envíalo de nuevo.',
  'error.tooLarge': 'Lo enviado es demasiado grande.',
  'error.internal':
    'Algo ha salido mal por nuestra parte. El registro del servidor tiene los detalles con el identificador de petición {id}.',
  'error.home': 'Volver a la portada',

  'errors.invalid_username':
    'Un nombre de usuario tiene de 3 a 40 letras, cifras, puntos, guiones o guiones bajos, y empieza por una letra o una cifra.',
  'errors.username_taken': 'Este nombre de usuario ya está en uso.',
  'errors.invalid_email': 'Indica un correo electrónico como nombre@example.org.',
  'errors.invalid_country': 'Elige tu país.',
  'errors.password_too_short': 'Una contraseña tiene al menos {min} caracteres.',
  'errors.password_too_long': 'Una contraseña tiene como máximo {max} caracteres.',
  'errors.wrong_credentials': 'Nombre de usuario o contraseña incorrectos.',
  'errors.sign_in_limited':
    'Demasiados inicios de sesión fallidos. Espera unos minutos y vuelve a intentarlo.',
  'errors.reset_link_invalid': 'Este enlace no es válido: ya se usó o tiene más de una hora.',
  'errors.callback_required': 'Una aplicación de terceros necesita una URL de retorno.',
  'errors.callback_invalid':
    'Indica una dirección completa como https://app.example.org/callback, sin #fragmento ni contraseña.',
  'errors.callback_not_https': 'Una URL de retorno debe usar https.',
  'errors.callback_not_https_sandbox':
    'Una URL de retorno debe usar https, o ser http://localhost o http://127.0.0.1.',
  'errors.app_kind_invalid': 'Elige el tipo de aplicación.',
  'errors.app_name_required': 'Ponle un nombre a la aplicación.',
  'errors.app_name_invalid': 'Un nombre de aplicación tiene como máximo {max} caracteres.',
  'errors.too_many_apps': 'Tienes tantas aplicaciones como puede tener una cuenta: revoca una primero.',
  'errors.not_dedicated': 'Solo una aplicación dedicada tiene un token de acceso que regenerar.',
  'errors.app_kind_not_allowed': 'Solo las aplicaciones de terceros piden autorización.',
} satisfies Dictionary;
