import { defineAgentTool, type AgentToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';
import { FAKE_DATA_NOTICE, fakeNumber } from '../fake-data.js';

const IATA_CODE = /^[A-Z]{3}$/;
const AIRLINES = ['UA', 'AA', 'DL', 'B6', 'AS'] as const;
/** First hour of the morning, midday and evening departure windows; each option falls in one. */
const DEPARTURE_WINDOWS = [6, 11, 16] as const;

/** What the user is told when an airport is not a code. */
export const AIRPORT_CODE_REASON = 'use the 3-letter IATA code in capitals, e.g. SFO or JFK';

function airportCode(value: string): string | undefined {
  return IATA_CODE.test(value) ? undefined : AIRPORT_CODE_REASON;
}

interface FlightOption {
  flight: string;
  origin: string;
  destination: string;
  departs: string;
  pricePerPassengerUsd: number;
  totalUsd: number;
  /** One line for the model and the user, e.g. `UA 100 SFO->JFK 08:00 $320`. */
  summary: string;
}

interface FlightSearchResult {
  notice: string;
  date: string;
  passengers: number;
  options: FlightOption[];
}

interface FlightQuery {
  origin: string;
  destination: string;
  date: string;
  passengers: number;
}

/** Three made-up flights for the query: the same route and date always give the same ones. */
function fakeFlights({ origin, destination, date, passengers }: FlightQuery): FlightSearchResult {
  const options = DEPARTURE_WINDOWS.map((firstHour, slot) => {
    const seed = (what: string): string[] => [origin, destination, date.trim().toLowerCase(), String(slot), what];
    const airline = AIRLINES[fakeNumber(AIRLINES.length, ...seed('airline'))] ?? AIRLINES[0];
    const flight = `${airline} ${100 + fakeNumber(900, ...seed('number'))}`;
    const departs = `${String(firstHour + fakeNumber(4, ...seed('hour'))).padStart(2, '0')}:${String(5 * fakeNumber(12, ...seed('minute'))).padStart(2, '0')}`;
    const price = 120 + 5 * fakeNumber(90, ...seed('price'));
    return {
      flight,
      origin,
      destination,
      departs,
      pricePerPassengerUsd: price,
      totalUsd: price * passengers,
      summary: `${flight} ${origin}->${destination} ${departs} $${price}`,
    };
  });
  return { notice: FAKE_DATA_NOTICE, date, passengers, options };
}

/**
 * `flight_search`: an agent-tool without approval. The model fills in what the user said; when
 * something is missing or is not an airport code, the agent asks the user (`waiting_for_input`)
 * and searches once it has everything. Reads only, so it is safe to repeat.
 */
export function flightSearchAgent(): AgentToolDefinition {
  return defineAgentTool({
    name: 'flight_search',
    description:
      'Searches flights between two airports on a date and returns three options with times and prices. Example runner: the flights are made up.',
    fields: {
      origin: {
        schema: z.string(),
        description: 'Departure airport',
        validate: airportCode,
        constraint: '3-letter IATA airport code',
      },
      destination: {
        schema: z.string(),
        description: 'Arrival airport',
        validate: airportCode,
        constraint: '3-letter IATA airport code',
      },
      date: {
        schema: z.string().trim().min(1).max(100),
        description: 'Day of travel as the user said it, e.g. "next Friday" or "2026-12-04"',
      },
      passengers: { schema: z.number().int().min(1).max(9), description: 'Number of passengers, 1-9', default: 1 },
    },
    version: '1.0.0',
    run: async (query) => fakeFlights(query),
  });
}
