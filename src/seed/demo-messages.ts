import { sendMessage } from '../domain/messages.js';
import type { Services } from '../services.js';
import { threadStats } from '../store/messages.js';
import { findUserByUsername } from '../store/users.js';

/**
 * A short conversation between the demo buyer and the demo seller, so `GET /account/messages`
 * answers something on a fresh sandbox (each has the other's messages unread).
 */
const CONVERSATION: Array<['buyer' | 'seller', string]> = [
  ['buyer', 'Hello! Do you also have the card in German? I would take two copies.'],
  ['seller', 'Hi Jean, yes: I can list two German copies, near mint, tonight.'],
  ['buyer', 'Perfect, thank you. Could you combine shipping with my last order?'],
  ['seller', 'Of course. I will send both in one letter once you have paid.'],
];

export async function seedDemoMessages(services: Services): Promise<void> {
  const db = services.database.db;
  const buyer = await findUserByUsername(db, 'demo-buyer');
  const seller = await findUserByUsername(db, 'demo-seller');
  if (!buyer || !seller) return;
  if ((await threadStats(db, buyer.idUser, seller.idUser)).total > 0) return;
  for (const [from, text] of CONVERSATION) {
    const [a, b] = from === 'buyer' ? [buyer, seller] : [seller, buyer];
    await sendMessage(services, a.idUser, b.idUser, text);
  }
}
