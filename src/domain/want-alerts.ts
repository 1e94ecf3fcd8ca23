import { formatCents } from '../format.js';
import { mapArticle } from '../mappers/article.js';
import { loadArticleViews } from '../store/articles.js';
import type { Tx } from '../store/db.js';
import { findUserById } from '../store/users.js';
import { type AlertWant, alertWants, findTargetProduct } from '../store/wants.js';
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
export async function alertWantsOfListedArticle(ctx: DomainContext, tx: Tx, payload: unknown): Promise<void> {
  const idArticle = (payload as { idArticle?: unknown } | null)?.idArticle;
  if (typeof idArticle !== 'number' || !Number.isInteger(idArticle)) {
    throw new Error(`article.listed needs an integer idArticle (got ${JSON.stringify(payload)})`);
  }
  const [article] = await loadArticleViews(tx, [idArticle]);
  if (!article || article.count <= 0) return;
  const seller = await findUserById(tx, article.idUser);
  if (!seller || seller.onVacation === 1) return;
  const product = await findTargetProduct(tx, article.idProduct);
  if (!product) return;
  const wants = await alertWants(
    tx,
    article.idProduct,
    product.idMetaproduct,
    product.idGame,
    article.idUser,
    // Every matching want raises the public `wantslist.offerFound`; the mail goes to those with
    // `mailAlert` on.
    { mailAlertOnly: false },
  );
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
