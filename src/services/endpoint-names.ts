import { randomInt } from 'node:crypto';

const ADJECTIVES = [
  'amazed', 'bold', 'brave', 'bright', 'calm', 'charmed', 'clever', 'cool', 'cosmic', 'crisp',
  'daring', 'eager', 'epic', 'fair', 'fancy', 'fast', 'fine', 'fond', 'free', 'fresh',
  'gentle', 'glad', 'glowing', 'golden', 'grand', 'happy', 'helpful', 'honest', 'humble', 'ideal',
  'jolly', 'keen', 'kind', 'lively', 'loyal', 'lucky', 'merry', 'mighty', 'modern', 'neat',
  'nice', 'noble', 'optimal', 'polite', 'proud', 'quick', 'quiet', 'rapid', 'rare', 'ready',
  'sharp', 'shining', 'smart', 'smooth', 'solid', 'steady', 'sunny', 'super', 'sweet', 'swift',
  'tender', 'tidy', 'true', 'vast', 'vital', 'warm', 'wise', 'witty', 'worthy', 'zesty',
];

const ANIMALS = [
  'aardvark', 'alpaca', 'ant', 'baboon', 'badger', 'bat', 'bear', 'beaver', 'bison', 'bobcat',
  'buffalo', 'camel', 'cat', 'cheetah', 'chicken', 'cobra', 'condor', 'cougar', 'crab', 'crane',
  'deer', 'dingo', 'dodo', 'dolphin', 'dove', 'eagle', 'eel', 'elk', 'falcon', 'ferret',
  'finch', 'fox', 'gecko', 'gibbon', 'goat', 'goose', 'gopher', 'hare', 'hawk', 'heron',
  'horse', 'hyena', 'ibex', 'jaguar', 'koala', 'lemur', 'lion', 'llama', 'lynx', 'macaw',
  'marmot', 'mole', 'moose', 'mouse', 'newt', 'ocelot', 'orca', 'otter', 'owl', 'panda',
  'parrot', 'pigeon', 'puma', 'quail', 'rabbit', 'raven', 'seal', 'shark', 'sloth', 'snail',
  'squid', 'stork', 'swan', 'tapir', 'tiger', 'toucan', 'turtle', 'viper', 'walrus', 'weasel',
  'whale', 'wildcat', 'wolf', 'wombat', 'yak', 'zebra',
];

/** Short region codes used as the endpoint suffix. */
export const REGION_CODES: Record<string, string> = { 'eu-west-1': 'eu1', 'us-central1': 'usc1' };

const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)];

/** A DNS-label-safe endpoint name like `glowing-baboon-15797-usc1`. */
export function generateEndpointName(region: string): string {
  const digits = String(randomInt(10_000, 100_000));
  return `${pick(ADJECTIVES)}-${pick(ANIMALS)}-${digits}-${REGION_CODES[region] ?? 'x'}`;
}
