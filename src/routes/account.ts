import { revokeAccessTokenById } from '../auth/apps.js';
import { getAccount, redeemCoupons, setDisplayLanguage, setVacation } from '../domain/account.js';
import {
  completeSellerActivation,
  parseBankDetails,
  parseTransferAmounts,
  requestSellerActivation,
} from '../domain/seller-activation.js';
import { sendLoginData } from '../domain/login-data.js';
import { badRequest } from '../errors.js';
import { publicOrigin } from '../http/origin.js';
import { requireBody } from '../http/body.js';
import { boolean, integer, strings, text } from '../http/fields.js';
import { ok, type Router, USER_KINDS } from '../http/routing.js';
import { accountLinks, accountTree, mapAccount, mapCoupon } from '../mappers/account.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import { Answer, BoolParam, PriceText, RequestBody, RequiredText } from '../http/route-schema.js';
import { AccountSchema, CouponSchema } from '../mappers/account.js';
import { LinksSchema } from '../mappers/values.js';

const AccountAnswer = Answer({ account: AccountSchema, links: LinksSchema });
const AccountMessageAnswer = Answer({ account: AccountSchema, message: Type.String(), links: LinksSchema });
import { presentList } from '../mappers/values.js';

/** Account management (spec §2.1, §4.1; reference §1.2). */
export function accountRoutes(r: Router, services: Services): void {
  r.get(
    '/account',
    {
      kinds: USER_KINDS,
      schema: { summary: 'The account of the user the app acts for', responses: { 200: AccountAnswer } },
    },
    async (req) => {
      const account = await getAccount(services, req.auth.idUser!);
      return ok({ account: accountTree(account), links: accountLinks() });
    },
  );

  r.put(
    '/account/vacation',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Go on vacation or come back',
        query: {
          onVacation: BoolParam,
          cancelOrders: BoolParam,
          relistItems: BoolParam,
        },
        requiredQuery: ['onVacation'],
        responses: { 200: AccountMessageAnswer },
      },
    },
    async (req) => {
      const onVacation = boolean(req.query, 'onVacation');
      if (onVacation === undefined) {
        throw badRequest('onVacation=true or onVacation=false is required in the query string.', {
          field: 'onVacation',
        });
      }
      const cancelOrders = boolean(req.query, 'cancelOrders') ?? false;
      const relistItems = boolean(req.query, 'relistItems') ?? false;
      const { account, message } = await setVacation(
        services,
        req.auth.idUser!,
        onVacation,
        cancelOrders,
        relistItems,
      );
      return ok({ account: mapAccount(account), message, links: accountLinks() });
    },
  );

  r.put(
    '/account/language',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Set the display language',
        query: { idDisplayLanguage: Type.Integer({ minimum: 1, maximum: 5 }) },
        requiredQuery: ['idDisplayLanguage'],
        responses: { 200: AccountAnswer },
      },
    },
    async (req) => {
      const idDisplayLanguage = integer(req.query, 'idDisplayLanguage');
      if (idDisplayLanguage === undefined) {
        throw badRequest('idDisplayLanguage (1 to 5) is required in the query string.', {
          field: 'idDisplayLanguage',
        });
      }
      const account = await setDisplayLanguage(services, req.auth.idUser!, idDisplayLanguage);
      return ok({ account: mapAccount(account), links: accountLinks() });
    },
  );

  r.post(
    '/account/coupon',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Redeem coupons into the bonus balance',
        body: RequestBody({
          couponCode: Type.Array(Type.String(), {
            minItems: 1,
            maxItems: 100,
            description: 'Repeated; each code redeemed or refused on its own.',
          }),
        }),
        responses: {
          200: Answer({ account: AccountSchema, coupon: Type.Array(CouponSchema), links: LinksSchema }),
        },
      },
    },
    async (req) => {
      const body = requireBody(req.body, '<couponCode>…</couponCode>');
      const codes = strings(body, 'couponCode').map((c) => c.trim());
      const { account, coupon } = await redeemCoupons(services, req.auth.idUser!, codes);
      return ok({
        account: mapAccount(account),
        coupon: presentList(coupon.map(mapCoupon)),
        links: accountLinks(),
      });
    },
  );

  // Seller activation (reference §1.2; deprecated on the live API, mapped by client libraries):
  // POST gives the bank details, PUT the two transfers' amounts.
  r.post(
    '/account/selleractivation',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Seller activation, step 1: the bank details',
        body: RequestBody({
          bankAccountOwner: RequiredText(100, 'Also read as `accountOwner`.'),
          iban: Type.String({
            maxLength: 60,
            pattern: '^\\s*[A-Za-z]\\s*[A-Za-z]\\s*\\d\\s*\\d(?:\\s*[A-Za-z0-9]){11,30}\\s*$',
            description: 'Spaces anywhere, any case; the check digits must hold (ISO 13616), else 400.',
          }),
          bic: Type.String({
            maxLength: 20,
            pattern: '^\\s*(?:[A-Za-z]\\s*){6}(?:[A-Za-z0-9]\\s*){2}(?:(?:[A-Za-z0-9]\\s*){3})?$',
            description: '8 or 11 letters and digits (ISO 9362).',
          }),
          bankName: RequiredText(100),
          phoneNumber: Type.String({
            maxLength: 30,
            pattern: '^\\s*\\+?[\\d ()/-]{5,}\\s*$',
            description: 'Digits, spaces, + - / ( ); at least four digits in a row when spaces are removed.',
          }),
        }),
        errors: [412],
        responses: { 200: AccountMessageAnswer },
      },
    },
    async (req) => {
      const body = requireBody(req.body, '<bankAccountOwner/><iban/><bic/><bankName/><phoneNumber/>');
      const details = parseBankDetails({
        accountOwner: text(body, 'bankAccountOwner') ?? text(body, 'accountOwner'),
        iban: text(body, 'iban'),
        bic: text(body, 'bic'),
        bankName: text(body, 'bankName'),
        phoneNumber: text(body, 'phoneNumber'),
      });
      await requestSellerActivation(services, req.auth.idUser!, details);
      const account = await getAccount(services, req.auth.idUser!);
      return ok({
        account: mapAccount(account),
        message:
          'Seller activation requested: two small transfers are made to your bank account and arrive on the next day.',
        links: accountLinks(),
      });
    },
  );

  r.put(
    '/account/selleractivation',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Seller activation, step 2: the amounts of the two transfers',
        body: RequestBody({
          amount1: PriceText('The first transfer, in euros (e.g. `0.12`).'),
          amount2: PriceText('The second transfer, in euros.'),
        }),
        errors: [412],
        responses: { 200: AccountMessageAnswer },
      },
    },
    async (req) => {
      const body = requireBody(req.body, '<amount1>0.12</amount1><amount2>0.34</amount2>');
      await completeSellerActivation(
        services,
        req.auth.idUser!,
        parseTransferAmounts(text(body, 'amount1'), text(body, 'amount2')),
      );
      const account = await getAccount(services, req.auth.idUser!);
      return ok({
        account: mapAccount(account),
        message: 'Seller activation complete: you may sell now.',
        links: accountLinks(),
      });
    },
  );

  // Third-party apps only (reference §1.2): "forgot my login data" for a user who cannot sign in,
  // so the app acts for nobody yet and signs with its own token and secret alone; mails a password reset link (`type=password`, the
  // body's <username>) or the username (`type=username`, the body's <email>). The answer is the
  // same whether the account exists or not.
  r.post(
    '/account/logindata',
    {
      kinds: ['thirdParty'],
      // For a user with no access token (yet, or any more): the app's own signature.
      signedBy: 'app',
      schema: {
        summary: 'Mail a user a password reset link or their username',
        query: {
          type: Type.String({
            enum: ['password', 'username'],
            description:
              '`password`: mail a reset link to the account of <username>; `username`: mail the username to <email>.',
          }),
        },
        requiredQuery: ['type'],
        body: RequestBody({
          username: Type.Optional(
            Type.String({ description: 'With type=password (an email address works too).' }),
          ),
          email: Type.Optional(Type.String({ description: 'With type=username.' })),
        }),
        responses: {
          200: Answer({
            logindata: Type.Literal('successful'),
            message: Type.String(),
          }),
        },
      },
    },
    async (req) => {
      const type = req.query.type;
      if (type !== 'password' && type !== 'username') {
        throw badRequest('type=password or type=username is required in the query string.', {
          field: 'type',
        });
      }
      const field = type === 'password' ? 'username' : 'email';
      const body = requireBody(req.body, `<${field}>…</${field}>`);
      const login = text(body, field) ?? '';
      const { origin, basePath } = publicOrigin(req.raw, services.config);
      const { mailing } = await sendLoginData(services, type, login, `${origin}${basePath}`);
      return ok({
        logindata: 'successful',
        message: mailing
          ? `If an account matches, an email with its ${type === 'password' ? 'password reset link' : 'username'} is on its way.`
          : 'This server sends no email (SMTP_URL is unset): nothing was sent.',
      });
    },
  );

  // Third-party apps only: ends the session of the user the app acts for.
  r.post(
    '/account/logout',
    {
      kinds: ['thirdParty'],
      schema: {
        summary: "End the third-party app's access token",
        responses: { 200: Answer({ logout: Type.Literal('successful') }) },
      },
    },
    async (req) => {
      await revokeAccessTokenById(services, req.auth.idAccessToken!);
      return ok({ logout: 'successful' });
    },
  );
}
