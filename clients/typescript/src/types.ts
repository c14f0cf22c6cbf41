/**
 * Names for the generated types (./schema.ts, from the service's OpenAPI document) that
 * this client takes and answers. States, views, actions and options are each game's own
 * shape: unions over the games, discriminated by `game` (states, views) or `type` (actions).
 *
 * The spec marks no member of an answer as required, so each is optional here, as a
 * field a server might leave out; the session's `version`, `to_act` and `view` are always
 * there in practice.
 */

import type { components } from "./schema.js";

export type Schemas = components["schemas"];

export type Action = Schemas["GameAction"];
export type GameState = Schemas["GameState"];
export type GameView = Schemas["GameView"];
export type GameOptions = Schemas["GameOptions"];
export type GameEvent = Schemas["Event"];

export type Game = Schemas["Game"];
export type LabelledAction = Schemas["LabelledAction"];
export type LegalMoves = Schemas["LegalMovesResponse"];
export type MoveResult = Schemas["MoveResponse"];
export type Score = Schemas["ScoreResponse"];
export type Hint = Schemas["HintResponse"];
export type Job = Schemas["Job"];
export type JobRef = Schemas["JobRef"];
export type Review = Schemas["ReviewBody"];
export type Stats = Schemas["Stats"];
export type Budget = Schemas["Budget"];
export type Level = Schemas["SeatSpec"]["level"];
export type SeatSpec = Schemas["SeatSpec"];
export type TurnTimer = Schemas["TurnTimer"];
export type TurnDeadline = Schemas["TurnDeadline"];
export type Problem = Schemas["Problem"];

export type Session = Schemas["Session"];
export type SessionCreated = Schemas["SessionCreated"];
export type SessionLog = Schemas["Log"];
export type LogEntry = Schemas["LogEntry"];

export type DealRequest = Schemas["DealRequest"];
export type BotMoveRequest = Schemas["AsyncBotMoveRequest"];
export type HintRequest = Schemas["HintRequest"];
export type GameReviewRequest = Schemas["GameReviewRequest"];
export type SessionCreateRequest = Schemas["SessionCreateRequest"];
export type SessionBotMoveRequest = Schemas["SessionBotMoveRequest"];
export type SessionHintRequest = Schemas["HintOptions"];
export type SessionReviewRequest = Schemas["SessionReviewRequest"];

/** A bot's decision; `job` is the job it ran as, when the server ran it as one (202). */
export interface BotMove {
  action: Action | undefined;
  stats: Stats | undefined;
  job: Job | undefined;
}

/** The `session` event's data: the session as it is at connection, or after a hand-over. */
export interface SessionEventData {
  version: number;
  seat: number | null;
  to_act: number | null;
  finished: boolean;
  seats: SeatSpec[];
  turn_deadline: TurnDeadline | null;
}
