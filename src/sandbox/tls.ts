import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { type Config, ConfigError, LIVE_HOST_NAMES } from '../config.js';
import { TLS_FILES } from './tls-files.js';

/**
 * The local certificate authority for clients with the live host built in (README, "Clients with
 * the live host built in"): `cardbazaar tls init` makes an authority and, signed by it, a server
 * certificate for the live hosts, `localhost` and the loopback addresses; `serve --tls-port N`
 * answers https with it; a client trusts the authority (`cardbazaar tls trust` says how). Sandbox
 * only. Made with node-forge (keys from Node's own generator): no OpenSSL binary needed.
 */

/** Apple's platforms refuse server certificates valid longer than 825 days, even from an authority of one's own. */
const SERVER_DAYS = 825;
const AUTHORITY_YEARS = 10;
/** What the certificate names besides the live hosts. */
const LOCAL_NAMES = ['localhost'];
const LOCAL_ADDRESSES = ['127.0.0.1', '::1'];

/** The host names the server certificate covers: the live hosts known and configured, and localhost. */
export function certificateNames(config: Config): string[] {
  return [...new Set([...LIVE_HOST_NAMES, ...config.liveHosts, ...LOCAL_NAMES])];
}

export interface TlsInit {
  dir: string;
  /** Whether a new authority was made (false: the one in the folder was kept). */
  newAuthority: boolean;
  names: string[];
  addresses: string[];
  /** The authority certificate's SHA-256 fingerprint (`AB:CD:…`), to recognise it in a trust store. */
  fingerprint: string;
  serverExpires: Date;
}

/**
 * Makes the authority (unless the folder has one, which is kept so that clients trusting it go on
 * doing so; `newAuthority` replaces it) and issues a fresh server certificate for `names`.
 */
export function initTls(dir: string, names: string[], options: { newAuthority?: boolean } = {}): TlsInit {
  mkdirSync(dir, { recursive: true });
  const caCertPath = join(dir, TLS_FILES.caCert);
  const caKeyPath = join(dir, TLS_FILES.caKey);
  let caCert: forge.pki.Certificate;
  let caKey: forge.pki.rsa.PrivateKey;
  const keep = !options.newAuthority && existsSync(caCertPath) && existsSync(caKeyPath);
  if (keep) {
    try {
      caCert = forge.pki.certificateFromPem(readFileSync(caCertPath, 'utf8'));
      caKey = forge.pki.privateKeyFromPem(readFileSync(caKeyPath, 'utf8')) as forge.pki.rsa.PrivateKey;
    } catch (err) {
      throw new ConfigError(
        `${caCertPath} or ${caKeyPath} cannot be read as a PEM certificate and RSA key (${(err as Error).message}): move them away, or make a new authority with --new-authority.`,
      );
    }
    // A key copied in with looser permissions is tightened: it can intercept the live hosts' traffic.
    chmodSync(caKeyPath, 0o600);
  } else {
    caKey = newKey();
    caCert = authorityCertificate(caKey);
    writeSecret(caKeyPath, forge.pki.privateKeyToPem(caKey));
    writeFileSync(caCertPath, forge.pki.certificateToPem(caCert), { mode: 0o644 });
  }
  const serverKey = newKey();
  const serverCert = serverCertificate(serverKey, caCert, caKey, names, LOCAL_ADDRESSES);
  writeSecret(join(dir, TLS_FILES.key), forge.pki.privateKeyToPem(serverKey));
  writeFileSync(join(dir, TLS_FILES.cert), forge.pki.certificateToPem(serverCert), { mode: 0o644 });
  return {
    dir,
    newAuthority: !keep,
    names,
    addresses: LOCAL_ADDRESSES,
    fingerprint: new X509Certificate(forge.pki.certificateToPem(caCert)).fingerprint256,
    serverExpires: serverCert.validity.notAfter,
  };
}

/** Written owner-only from the start (no moment in which others could read it), and kept so if it existed. */
function writeSecret(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

function newKey(): forge.pki.rsa.PrivateKey {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
}

function publicOf(key: forge.pki.rsa.PrivateKey): forge.pki.rsa.PublicKey {
  return forge.pki.setRsaPublicKey(key.n, key.e);
}

/** A positive 128-bit serial number (RFC 5280 §4.1.2.2: positive, at most 20 bytes), random. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

/** Valid from an hour ago: a client whose clock runs a little behind accepts it at once. */
function validity(cert: forge.pki.Certificate, days: number): void {
  const from = new Date(Date.now() - 60 * 60 * 1000);
  cert.validity.notBefore = from;
  cert.validity.notAfter = new Date(from.getTime() + days * 24 * 60 * 60 * 1000);
}

function authorityCertificate(key: forge.pki.rsa.PrivateKey): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicOf(key);
  cert.serialNumber = serialNumber();
  validity(cert, AUTHORITY_YEARS * 365);
  // Named after the machine and the day, so a trust store listing several tells them apart.
  const subject = [
    { name: 'organizationName', value: 'cardbazaar sandbox' },
    {
      name: 'commonName',
      value: `cardbazaar local authority ${hostname().slice(0, 24)} ${new Date().toISOString().slice(0, 10)}`,
    },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return cert;
}

function serverCertificate(
  key: forge.pki.rsa.PrivateKey,
  ca: forge.pki.Certificate,
  caKey: forge.pki.rsa.PrivateKey,
  names: string[],
  addresses: string[],
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicOf(key);
  cert.serialNumber = serialNumber();
  validity(cert, SERVER_DAYS);
  cert.setSubject([
    { name: 'organizationName', value: 'cardbazaar sandbox' },
    { name: 'commonName', value: names[0] ?? 'localhost' },
  ]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        ...names.map((value) => ({ type: 2, value })), // dNSName
        ...addresses.map((ip) => ({ type: 7, ip })), // iPAddress
      ],
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return cert;
}

/**
 * How to make each kind of client trust the authority, for `cardbazaar tls trust`: environment
 * variables where the runtime reads one, the system store otherwise, and the warning mkcert gives.
 */
export function trustInstructions(dir: string): string {
  const ca = join(dir, TLS_FILES.caCert);
  const key = join(dir, TLS_FILES.caKey);
  return `The local certificate authority: ${ca}
(certificates for ${LIVE_HOST_NAMES.join(', ')}, localhost, 127.0.0.1 and ::1 are signed by it)

WARNING: whoever holds ${key} can make certificates that every client trusting
this authority accepts for any name, and so read or change their traffic to the live hosts. Keep it
on this machine (it is readable by its owner only), never commit or share it, trust the authority only
where you test, and remove it from trust stores when done. Only ca.pem is public.

Node.js (adds to the built-in list; read at start):
  export NODE_EXTRA_CA_CERTS=${ca}

Python (requests, httpx, urllib; these replace the default list, so give a bundle holding both):
  cat "$(python3 -m certifi)" ${ca} > cardbazaar-bundle.pem   # or /etc/ssl/certs/ca-certificates.crt
  export REQUESTS_CA_BUNDLE=$PWD/cardbazaar-bundle.pem SSL_CERT_FILE=$PWD/cardbazaar-bundle.pem

PHP (curl extension and streams; php.ini or -d on the command line):
  curl.cainfo=${ca}
  openssl.cafile=${ca}
  (each replaces the default list: give the bundle made above if the client calls other https hosts too;
   the curl command line: export CURL_CA_BUNDLE=${ca}, or curl --cacert ${ca})

Go (crypto/x509 on Linux; SSL_CERT_FILE replaces the system list, so give the bundle made above):
  export SSL_CERT_FILE=$PWD/cardbazaar-bundle.pem
  (or install it into the system store below, which Go reads by default)

Java and Kotlin (the JDK's own store; the default password is changeit):
  keytool -importcert -noprompt -trustcacerts -alias cardbazaar-sandbox -file ${ca} -cacerts -storepass changeit
  (or a store of your own: keytool -importcert -alias cardbazaar-sandbox -file ${ca} -keystore sandbox.jks
   -storepass changeit -noprompt, then java -Djavax.net.ssl.trustStore=sandbox.jks -Djavax.net.ssl.trustStorePassword=changeit …)

.NET (HttpClient):
  Linux: install it into the system store below (OpenSSL's store is the one .NET reads), or
         export SSL_CERT_FILE pointing to a bundle holding it (as for Python)
  Windows (PowerShell): Import-Certificate -FilePath ${ca} -CertStoreLocation Cert:\\CurrentUser\\Root
  macOS: sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ${ca}

Debian and Ubuntu containers (CI):
  cp ${ca} /usr/local/share/ca-certificates/cardbazaar-sandbox.crt && update-ca-certificates

Alpine containers (CI):
  apk add --no-cache ca-certificates
  cp ${ca} /usr/local/share/ca-certificates/cardbazaar-sandbox.crt && update-ca-certificates

Fedora, RHEL:
  cp ${ca} /etc/pki/ca-trust/source/anchors/cardbazaar-sandbox.pem && update-ca-trust

Then send the live host names to the sandbox (README, "Clients with the live host built in"):
  127.0.0.1 apiv2.cardmarket.com api.cardmarket.com sandbox.cardmarket.com www.mkmapi.eu sandbox.mkmapi.eu
in /etc/hosts, or \`cardbazaar dns\` as the resolver.`;
}
