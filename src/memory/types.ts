// Every memory type kept in NVS: its fields, its byte layout and its store.
// Sizes never exceed seed 000 §3.1; capacities are the seed's. The bytes are
// documented field by field in docs/FORMAT.md, which a test keeps in step.

import { Layout } from "../nvs/layout";
import type { StoreSpec } from "../nvs/store";

export const EMOTIONS = ["neutral", "happy", "sad", "excited", "worried", "touched"] as const;
export type Emotion = (typeof EMOTIONS)[number];
export const REPEATS = ["none", "daily", "weekly", "monthly"] as const;
export type Repeat = (typeof REPEATS)[number];
export const MEMBER_TYPES = ["family", "relative", "friend", "pet", "other"] as const;
export type MemberType = (typeof MEMBER_TYPES)[number];
export const GOAL_CATEGORIES = ["learning", "health", "career", "hobby", "other"] as const;
export type GoalCategory = (typeof GOAL_CATEGORIES)[number];
export const GOAL_STATUSES = ["active", "completed", "paused", "abandoned"] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export const ROLES = ["user", "assistant"] as const;
export type Role = (typeof ROLES)[number];

export interface Profile {
  name: string;
  birthday: string; // MM-DD
  age: number; // 0: unknown
  gender: string;
  location: string;
}

export interface FamilyMember {
  relation: string;
  name: string;
  memberType: MemberType;
  closeness: number; // 1-5
  sharedMemory: string;
  updated: number; // unix seconds
}

export interface Preferences {
  likes: string[]; // oldest first
  dislikes: string[];
}

export interface Event {
  date: string; // YYYY-MM-DD or MM-DD
  time: string; // HH:MM, "" for a plain event
  eventType: string;
  content: string;
  reminded: number; // 0 or 1
  emotion: Emotion;
  intensity: number; // 0-5
  significance: number; // 1-5
  priority: number; // 1-5
  schedule: boolean;
  completed: boolean;
  repeat: Repeat;
  repeatInterval: number; // repeat every N units; 1 for a plain repeat
  duration: number; // minutes
}

// An event with seed 000's defaults: a plain (not scheduled) event of
// significance and priority 3; callers give what differs.
export function newEvent(fields: Partial<Event> & { date: string; content: string }): Event {
  return {
    time: "",
    eventType: "event",
    reminded: 0,
    emotion: "neutral",
    intensity: 0,
    significance: 3,
    priority: 3,
    schedule: false,
    completed: false,
    repeat: "none",
    repeatInterval: 1,
    duration: 0,
    ...fields,
  };
}

export interface Fact {
  timestamp: number; // unix seconds
  content: string;
}

export interface Trait {
  category: string;
  content: string;
}

export interface Habit {
  content: string;
  frequency: string;
}

export interface Moment {
  timestamp: number;
  topic: string;
  content: string;
  emotion: Emotion;
  intensity: number; // 0-5
  importance: number; // 1-5
}

export interface Goal {
  content: string;
  created: number;
  updated: number;
  category: GoalCategory;
  status: GoalStatus;
  progress: number; // 0-100
  priority: number; // 1-5
}

export interface ChatMessage {
  timestamp: number;
  role: Role;
  content: string;
}

export interface Affection {
  totalCoinsSpent: number;
  affection: number; // 0-100
  maxAffection: number;
  mood: number; // -10..+10
  stage: number; // RelationshipStage, derived from coins, kept for dumps
  firstMeet: number;
  lastChat: number;
  streakDays: number;
  totalDays: number;
  totalConversations: number;
  totalMessages: number;
  totalChatSeconds: number;
  happyMoments: number;
  sadMoments: number;
  comfortedTimes: number;
  sharedSecrets: number;
  achievements: number; // bit set, see ACHIEVEMENTS
  // version 2 (src/relation/evolver.ts)
  coinDay: number; // local day number (days since 1970-01-01, local) of the two counters below; 0 none
  chatCoins: number; // coins conversations earned on coinDay (streak bonuses not counted)
  taskCoins: number; // coins completed schedules earned on coinDay
  told: number; // achievements `read` has reported (bit set, as achievements)
  bestStreak: number; // the longest streak of days, ever
  dayAffection: number; // affection gained on coinDay (capped per day)
}

export const profileLayout = new Layout<Profile>("UserProfile", [
  { name: "name", kind: "str", bytes: 32 },
  { name: "birthday", kind: "str", bytes: 6 },
  { name: "age", kind: "u8" },
  { name: "gender", kind: "str", bytes: 8 },
  { name: "location", kind: "str", bytes: 32 },
]);

export const familyLayout = new Layout<FamilyMember>("FamilyMember", [
  { name: "relation", kind: "str", bytes: 16 },
  { name: "name", kind: "str", bytes: 32 },
  { name: "memberType", kind: "enum", values: MEMBER_TYPES },
  { name: "closeness", kind: "u8" },
  { name: "sharedMemory", kind: "str", bytes: 64 },
  { name: "updated", kind: "u32" },
]);

export const preferencesLayout = new Layout<Preferences>("Preferences", [
  { name: "likes", kind: "strs", bytes: 32, count: 8 },
  { name: "dislikes", kind: "strs", bytes: 32, count: 8 },
]);

export const eventLayout = new Layout<Event>("Event", [
  { name: "date", kind: "str", bytes: 11 },
  { name: "time", kind: "str", bytes: 6 },
  { name: "eventType", kind: "str", bytes: 16 },
  { name: "content", kind: "str", bytes: 64 },
  { name: "reminded", kind: "u8" },
  { name: "emotion", kind: "enum", values: EMOTIONS },
  { name: "intensity", kind: "u8" },
  { name: "significance", kind: "u8" },
  { name: "priority", kind: "u8" },
  {
    name: "flags",
    kind: "bits",
    parts: [
      { name: "schedule", mask: 0x01 },
      { name: "completed", mask: 0x02 },
      { name: "repeat", mask: 0x0c, values: REPEATS },
    ],
  },
  { name: "repeatInterval", kind: "u8" },
  { name: "duration", kind: "u16" },
]);

export const factLayout = new Layout<Fact>("Fact", [
  { name: "timestamp", kind: "u32" },
  { name: "content", kind: "str", bytes: 128 },
]);

export const traitLayout = new Layout<Trait>("Trait", [
  { name: "category", kind: "str", bytes: 16 },
  { name: "content", kind: "str", bytes: 48 },
]);

export const habitLayout = new Layout<Habit>("Habit", [
  { name: "content", kind: "str", bytes: 48 },
  { name: "frequency", kind: "str", bytes: 16 },
]);

export const momentLayout = new Layout<Moment>("SpecialMoment", [
  { name: "timestamp", kind: "u32" },
  { name: "topic", kind: "str", bytes: 32 },
  { name: "content", kind: "str", bytes: 128 },
  { name: "emotion", kind: "enum", values: EMOTIONS },
  { name: "intensity", kind: "u8" },
  { name: "importance", kind: "u8" },
]);

export const goalLayout = new Layout<Goal>("PersonalGoal", [
  { name: "content", kind: "str", bytes: 64 },
  { name: "created", kind: "u32" },
  { name: "updated", kind: "u32" },
  { name: "category", kind: "enum", values: GOAL_CATEGORIES },
  { name: "status", kind: "enum", values: GOAL_STATUSES },
  { name: "progress", kind: "u8" },
  { name: "priority", kind: "u8" },
]);

// Version 2 keeps 79 bytes of each message (26 Chinese characters) instead of
// 95, which leaves NVS room for the health record; version 1 migrates by
// cutting the text at a character boundary.
export const CHAT_TEXT_BYTES = 79;
export const chatLayout = new Layout<ChatMessage>("ChatMessage", [
  { name: "timestamp", kind: "u32" },
  { name: "role", kind: "enum", values: ROLES },
  { name: "content", kind: "str", bytes: CHAT_TEXT_BYTES },
]);
export const chatLayoutV1 = new Layout<ChatMessage>("ChatMessage", [
  { name: "timestamp", kind: "u32" },
  { name: "role", kind: "enum", values: ROLES },
  { name: "content", kind: "str", bytes: 95 },
]);

// What boot found wrong on flash over the device's life (src/nvs/health.ts),
// and the boot count: written once per boot, and when boot found damage.
export interface HealthRecord {
  magic: number;
  type: number;
  version: number;
  length: number;
  crc: number;
  incomplete: number;
  orphan: number;
  migrated: number;
  lastStore: string;
  lastProblem: string;
  lastSeen: number; // unix seconds
  unreadable: number;
  missing: number;
  boots: number; // boots of this firmware's memory since version 2 of the record
  lost: number; // stores found with every copy damaged, in all
  told: number; // `lost` when `read` last said so
}
export const HEALTH_PROBLEMS = ["none", "magic", "type", "version", "length", "crc", "incomplete", "orphan", "migrated", "unreadable", "missing"] as const;
const healthV1Fields = [
  { name: "magic", kind: "u16" },
  { name: "type", kind: "u16" },
  { name: "version", kind: "u16" },
  { name: "length", kind: "u16" },
  { name: "crc", kind: "u16" },
  { name: "incomplete", kind: "u16" },
  { name: "orphan", kind: "u16" },
  { name: "migrated", kind: "u16" },
  { name: "lastStore", kind: "str", bytes: 12 },
  { name: "lastProblem", kind: "enum", values: HEALTH_PROBLEMS },
  { name: "lastSeen", kind: "u32" },
] as const;
export const healthLayoutV1 = new Layout<HealthRecord>("HealthRecord", healthV1Fields);
export const healthLayout = new Layout<HealthRecord>("HealthRecord", [
  ...healthV1Fields,
  { name: "unreadable", kind: "u16" },
  { name: "missing", kind: "u16" },
  { name: "boots", kind: "u32" },
  { name: "lost", kind: "u16" },
  { name: "told", kind: "u16" },
]);

// An item heard in conversation, waiting to be confirmed (src/listen/pending.ts).
export const PENDING_KINDS = ["name", "age", "gender", "location", "birthday", "like", "dislike", "family", "fact", "event", "schedule"] as const;
export type PendingKind = (typeof PENDING_KINDS)[number];

export interface PendingItem {
  kind: PendingKind;
  confidence: number; // 1-5
  count: number; // times heard, in separate utterances
  first: number; // unix seconds, first heard: the item expires 7 days later
  when: number; // unix seconds: a schedule's start, an event's local midnight; else 0
  value: string; // see src/listen/pending.ts for each kind's value
}

export const pendingLayout = new Layout<PendingItem>("PendingItem", [
  { name: "kind", kind: "enum", values: PENDING_KINDS },
  { name: "confidence", kind: "u8" },
  { name: "count", kind: "u8" },
  { name: "first", kind: "u32" },
  { name: "when", kind: "u32" },
  { name: "value", kind: "str", bytes: 48 },
]);

const affectionV1Fields = [
  { name: "totalCoinsSpent", kind: "u32" },
  { name: "affection", kind: "u8" },
  { name: "maxAffection", kind: "u8" },
  { name: "mood", kind: "i8" },
  { name: "stage", kind: "u8" },
  { name: "firstMeet", kind: "u32" },
  { name: "lastChat", kind: "u32" },
  { name: "streakDays", kind: "u16" },
  { name: "totalDays", kind: "u16" },
  { name: "totalConversations", kind: "u32" },
  { name: "totalMessages", kind: "u32" },
  { name: "totalChatSeconds", kind: "u32" },
  { name: "happyMoments", kind: "u8" },
  { name: "sadMoments", kind: "u8" },
  { name: "comfortedTimes", kind: "u8" },
  { name: "sharedSecrets", kind: "u8" },
  { name: "achievements", kind: "u16" },
] as const;
export const affectionLayoutV1 = new Layout<Affection>("AffectionStats", affectionV1Fields);
// Version 2 (47 bytes, within the seed's 48): the day's counters that cap what
// a day can earn (coins, affection), the achievements already reported, the
// best streak.
export const affectionLayout = new Layout<Affection>("AffectionStats", [
  ...affectionV1Fields,
  { name: "coinDay", kind: "u16" },
  { name: "chatCoins", kind: "u8" },
  { name: "taskCoins", kind: "u8" },
  { name: "told", kind: "u16" },
  { name: "bestStreak", kind: "u16" },
  { name: "dayAffection", kind: "u8" },
]);
// Version 1 → 2: no day counted yet; what version 1 had unlocked (nothing
// unlocked achievements then) counts as reported; the best streak is the current one.
export function affectionUp(old: Record<string, unknown>): Record<string, unknown> {
  return { ...old, coinDay: 0, chatCoins: 0, taskCoins: 0, told: old.achievements, bestStreak: old.streakDays, dayAffection: 0 };
}

// The device's settings (src/config/presets.ts): written only when the owner
// changes one (action=config); absent, the build's defaults apply.
export const PRESETS = ["minimal", "balanced", "full"] as const;
export type PresetName = (typeof PRESETS)[number];
export interface ConfigRecord {
  preset: PresetName;
  utcOffset: number; // minutes east of UTC, -720..840 (issue 14 will apply it; stored, not used yet)
}
export const configLayout = new Layout<ConfigRecord>("Config", [
  { name: "preset", kind: "enum", values: PRESETS },
  { name: "utcOffset", kind: "i16" },
]);

// The seed's size for each type (§3.1), which no layout may exceed.
export const SEED_RECORD_BYTES: Record<string, number> = {
  UserProfile: 79,
  FamilyMember: 130,
  Preferences: 530,
  Event: 106,
  Fact: 132,
  Trait: 64,
  Habit: 64,
  SpecialMoment: 168,
  PersonalGoal: 80,
  ChatMessage: 100,
  AffectionStats: 48,
  PendingItem: 112, // not in §3.1: the fork's pending_memory.h
  HealthRecord: 48, // not in the seed: kept within AffectionStats' size
  Config: 16, // not in the seed: S4's presets, kept tiny
};

// Store specs: NVS key prefix, header type code and capacity. Codes are never reused.
// copies: 1 for the five large tables (one NVS copy, the mirror file the
// second; format 3, docs/design/nvs-share.md), two NVS copies for the rest.
export const SPECS = {
  profile: { name: "profile", key: "prof", code: 1, version: 1, layout: profileLayout, capacity: 1 } as StoreSpec<Profile>,
  family: { name: "family", key: "fam", code: 2, version: 1, layout: familyLayout, capacity: 8 } as StoreSpec<FamilyMember>,
  preferences: { name: "preferences", key: "pref", code: 3, version: 1, layout: preferencesLayout, capacity: 1 } as StoreSpec<Preferences>,
  events: { name: "events", key: "evt", code: 4, version: 1, layout: eventLayout, capacity: 16, copies: 1 } as StoreSpec<Event>,
  facts: { name: "facts", key: "fact", code: 5, version: 1, layout: factLayout, capacity: 20, copies: 1 } as StoreSpec<Fact>,
  traits: { name: "traits", key: "trait", code: 6, version: 1, layout: traitLayout, capacity: 10 } as StoreSpec<Trait>,
  habits: { name: "habits", key: "habit", code: 7, version: 1, layout: habitLayout, capacity: 10 } as StoreSpec<Habit>,
  moments: { name: "moments", key: "mom", code: 8, version: 1, layout: momentLayout, capacity: 10, copies: 1 } as StoreSpec<Moment>,
  goals: { name: "goals", key: "goal", code: 9, version: 1, layout: goalLayout, capacity: 5 } as StoreSpec<Goal>,
  chat: {
    name: "chat",
    key: "chat",
    code: 10,
    version: 2,
    layout: chatLayout,
    capacity: 30,
    copies: 1,
    migrations: [{ version: 1, layout: chatLayoutV1 as Layout<object>, up: (old: Record<string, unknown>) => old }],
  } as StoreSpec<ChatMessage>,
  affection: {
    name: "affection",
    key: "aff",
    code: 11,
    version: 2,
    layout: affectionLayout,
    capacity: 1,
    migrations: [{ version: 1, layout: affectionLayoutV1 as Layout<object>, up: affectionUp }],
  } as StoreSpec<Affection>,
  config: { name: "config", key: "conf", code: 14, version: 1, layout: configLayout, capacity: 1 } as StoreSpec<ConfigRecord>,
  // last: Memory.flush() writes it after the stores its confirmed items go to
  health: {
    name: "health",
    key: "hlth",
    code: 13,
    version: 2,
    layout: healthLayout,
    capacity: 1,
    migrations: [{ version: 1, layout: healthLayoutV1 as Layout<object>, up: (old: Record<string, unknown>) => old }],
  } as StoreSpec<HealthRecord>,
  pending: { name: "pending", key: "pend", code: 12, version: 1, layout: pendingLayout, capacity: 20, copies: 1 } as StoreSpec<PendingItem>,
};

export type StoreName = keyof typeof SPECS;
export const PREFERENCE_CAPACITY = 8; // likes, and again dislikes

export const ACHIEVEMENTS = [
  "first_chat",
  "week_streak",
  "month_streak",
  "100_chats",
  "share_secret",
  "first_comfort",
  "anniversary_1",
  "max_affection",
  "know_family",
  "know_hobby",
] as const;

// Relationship stage from total coins spent (seed 000 §5.1).
export const STAGES = [
  { stage: "stranger", min: 0, hint: "客气生疏，称呼“主人”或“您”" },
  { stage: "acquaintance", min: 21, hint: "自然一些，称呼“你”，偶尔撒娇" },
  { stage: "friend", min: 51, hint: "放松随意，可以开玩笑" },
  { stage: "close_friend", min: 101, hint: "信任依赖，愿意说心事" },
  { stage: "soulmate", min: 201, hint: "完全放松，有默契和专属的梗" },
] as const;

export function stageIndex(totalCoinsSpent: number): number {
  let i = 0;
  for (let k = 0; k < STAGES.length; k++) if (totalCoinsSpent >= STAGES[k].min) i = k;
  return i;
}
