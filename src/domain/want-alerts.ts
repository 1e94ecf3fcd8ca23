import { formatCents } from '../format.js';
import { mapArticle } from '../mappers/article.js';
import { type ArticleView, availableArticleProducts, loadArticleViews } from '../store/articles.js';
import type { Tx } from '../store/db.js';
import type { User } from '../store/schema.js';
import { usersByIds } from '../store/users.js';
import { type AlertWant, alertWantsOfAny, targetProducts } from '../store/wants.js';
import { languageName } from './catalog.js';
import type { DomainContext } from './context.js';
import { sendSystemMessage } from './system-messages.js';
import { EVENT_KINDS, raiseUserEvents } from './user-events.js';
import { offerMatchesWant } from './wants.js';

/**
 * The wants-list mail alert: when an article becomes available or cheaper (`article.listed`), every
 * user with a want that has `mailAlert` on and accepts the article (same product, or any printing
 * of the metaproduct; language, condition and flags as the want asks; price at or below the wish
 * price, any price when the want has none) gets one message from the system naming the offer.
 * Not alerted: the seller themself, and nobody while the seller is on vacation or the article has
 * no copy left (its offer is not available).
 */
export async function alertWantsOfListedArticles(
  ctx: DomainContext,
  tx: Tx,
  payloads: unknown[],
): Promise<void> {
  const ids = payloads.map((payload) => {
    const idArticle = (payload as { idArticle?: unknown } | null)?.idArticle;
    if (typeof idArticle !== 'number' || !Number.isInteger(idArticle)) {
      throw new Error(`article.listed needs an integer idArticle (got ${JSON.stringify(payload)})`);
    }
    return idArticle;
  });
  // A bulk stock write lists up to a hundred articles at once: the products of those still
  // available and the wants on them are read first, in three statements; only when some want is
  // there are the articles and their sellers read in full (two more), then each article is alerted
  // in turn. Most listings match no want: they cost the three small reads.
  const unique = [...new Set(ids)];
  const products = await targetProducts(tx, await availableArticleProducts(tx, unique));
  const metas = [...products.values()].flatMap((p) => (p.idMetaproduct === null ? [] : [p.idMetaproduct]));
  const wants = await alertWantsOfAny(tx, [...products.keys()], metas);
  if (wants.length === 0) return;
  const articles = new Map((await loadArticleViews(tx, unique)).map((a) => [a.idArticle, a]));
  const listed = [...articles.values()].filter((a) => a.count > 0);
  if (listed.length === 0) return;
  const sellers = await usersByIds(
    tx,
    listed.map((a) => a.idUser),
  );
  for (const idArticle of ids) {
    const article = articles.get(idArticle);
    if (!article || article.count <= 0) continue;
    const seller = sellers.get(article.idUser);
    if (!seller || seller.onVacation === 1) continue;
    const product = products.get(article.idProduct);
    if (!product) continue;
    // The wants on this article: of its game, not the seller's own, on the product or its
    // metaproduct (every matching want raises the public `wantslist.offerFound`; the mail goes
    // to those with `mailAlert` on).
    const matching = wants.filter(
      (w) =>
        w.listGame === product.idGame &&
        w.idUser !== article.idUser &&
        (w.idProduct === article.idProduct ||
          (product.idMetaproduct !== null && w.idMetaproduct === product.idMetaproduct)),
    );
    await alertArticle(ctx, tx, article, seller, matching);
  }
}

async function alertArticle(
  ctx: DomainContext,
  tx: Tx,
  article: ArticleView,
  seller: User,
  wants: AlertWant[],
): Promise<void> {
  const offer = { ...article, isSingle: article.product.isSingle === 1 };
  const byOwner = new Map<number, AlertWant[]>();
  for (const want of wants) {
    if (want.wishPrice > 0 && article.price > want.wishPrice) continue;
    if (!offerMatchesWant(want, offer)) continue;
    byOwner.set(want.idUser, [...(byOwner.get(want.idUser) ?? []), want]);
  }
  const now = ctx.clock.now();
  const shown = mapArticle(article, { context: 'marketplace', seller });
  await raiseUserEvents(
    tx,
    now,
    [...byOwner].map(([owner, matched]) => ({
      idUser: owner,
      type: EVENT_KINDS.wantOfferFound,
      data: {
        want: matched.map((w) => ({
          idWant: w.idWant,
          idWantslist: w.idWantslist,
          wantslistName: w.listName,
        })),
        article: shown,
      },
    })),
  );
  for (const [owner, all] of byOwner) {
    const matched = all.filter((w) => w.mailAlert === 1);
    if (matched.length === 0) continue;
    const lists = matched
      .map(
        (w) =>
          `"${w.listName}" (${w.wishPrice > 0 ? `wish price ${formatCents(w.wishPrice)} EUR` : 'no wish price'})`,
      )
      .join(', ');
    const details = [
      `${article.count} ${article.count === 1 ? 'copy' : 'copies'}`,
      languageName(article.idLanguage),
      offer.isSingle ? article.condition : null,
      article.isFoil ? 'foil' : null,
      article.isSigned ? 'signed' : null,
      article.isAltered ? 'altered' : null,
      article.isFirstEd ? 'first edition' : null,
    ]
      .filter(Boolean)
      .join(', ');
    const expansion = article.product.expansionName ? ` (${article.product.expansionName})` : '';
    const text =
      `Wants list alert: ${article.product.enName}${expansion} is offered for ${formatCents(article.price)} EUR ` +
      `by ${seller.username} (${details}), article ${article.idArticle}. ` +
      `It matches your ${matched.length === 1 ? 'want' : 'wants'} in ${lists}. ` +
      `All offers: /articles/${article.idProduct}`;
    await sendSystemMessage(tx, now, owner, text);
  }
}
